/*
 * The part WebP and AVIF share in the one encoder: neither libwebp nor libavif encodes a row at a time, so the rows are
 * copied into one RGBA8 canvas (width * height * 4 bytes, allocated when the encoder starts) and the format's `end`
 * encodes it. encoder.c has already checked the size, the state and that each batch of rows fits.
 */
#include "encoder_internal.h"

#include <stdlib.h>
#include <string.h>

int32_t clanes_canvas_check(const clanes_encode_options *options, const char *name, int32_t max_effort, char *message,
                            size_t capacity) {
    if (options->effort < 0 || options->effort > max_effort) {
        clanes_set_message(message, capacity, "%s effort %d is not 0...%d", name, options->effort, max_effort);
        return CLANES_ERR_ARGUMENT;
    }
    if (options->channels != 4 || options->bytes_per_sample != 1) {
        clanes_set_message(message, capacity, "%s rows must be RGBA8 (got %d channel(s) of %d byte(s))", name,
                           options->channels, options->bytes_per_sample);
        return CLANES_ERR_ARGUMENT;
    }
    if (options->quality < 0 || options->quality > 100) {
        clanes_set_message(message, capacity, "%s quality %d is not 0...100", name, options->quality);
        return CLANES_ERR_ARGUMENT;
    }
    return CLANES_OK;
}

int32_t clanes_canvas_start(clanes_encoder *e) {
    size_t bytes = e->row_bytes * e->options.height; /* both sides <= the format's max_side (< 2^17): no overflow */
    e->format_state = malloc(bytes);
    if (e->format_state == NULL) {
        clanes_set_message(e->message, e->capacity, "cannot allocate the %ux%u %s canvas (%zu bytes)", e->options.width,
                           e->options.height, e->format->name, bytes);
        return CLANES_ERR_NO_MEMORY;
    }
    return CLANES_OK;
}

int32_t clanes_canvas_rows(clanes_encoder *e, const uint8_t *pixels, size_t bytes_per_row, uint32_t count) {
    uint8_t *canvas = (uint8_t *)e->format_state + (size_t)e->rows * e->row_bytes;
    for (uint32_t y = 0; y < count; y++) {
        memcpy(canvas + (size_t)y * e->row_bytes, pixels + (size_t)y * bytes_per_row, e->row_bytes);
    }
    return CLANES_OK;
}

const uint8_t *clanes_canvas_pixels(const clanes_encoder *e) {
    return (const uint8_t *)e->format_state;
}

void clanes_canvas_release(clanes_encoder *e) {
    free(e->format_state);
    e->format_state = NULL;
}
