/*
 * The JPEG part of the row encoder (encoder.c): libjpeg-turbo fed a row at a time, alpha flattened on a background,
 * the bytes handed on 64 KB at a time (or kept in memory). Each function that calls libjpeg sets its own setjmp, so a
 * longjmp never leaves this file; every value read after one lives in the heap-allocated state.
 */
#include "encoder_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_internal.h"

/* What one encoded row is made from: the caller's layout and the background alpha is flattened on. */
typedef struct jpeg_row_source {
    int32_t channels;         /* 1, 2 or 4 */
    int32_t bytes_per_sample; /* 1 or 2 */
    uint32_t background[3];   /* red, green, blue on the 16-bit scale; grey layouts use background[0] (the luma) */
} jpeg_row_source;

typedef struct jpeg_encoder_state {
    struct jpeg_compress_struct cinfo; /* first, so the j_compress_ptr libjpeg passes back casts to the state */
    jpeg_error_context error;
    struct jpeg_destination_mgr destination;
    jpeg_row_source source;
    uint8_t *row;         /* one flattened 8-bit row */
    int created;
    clanes_encoder *encoder; /* its `output` is the window: the whole file in memory, or what goes to the descriptor */
} jpeg_encoder_state;

/* libjpeg writes straight into the growable buffer: the free space after `size` is its window. */
#define CLANES_JPEG_OUTPUT_CHUNK 65536

static void jpeg_offer_space(jpeg_encoder_state *j) {
    clanes_buffer *output = &j->encoder->output;
    j->destination.next_output_byte = output->bytes + output->size;
    j->destination.free_in_buffer = output->capacity - output->size;
}

/* Hands the first `length` bytes of the window to the descriptor; ERREXITs on failure. */
static void jpeg_write_window(jpeg_encoder_state *j, size_t length) {
    if (!clanes_encoder_emit(j->encoder, j->encoder->output.bytes, length)) {
        ERREXIT(&j->cinfo, JERR_FILE_WRITE);
    }
}

static void jpeg_destination_init(j_compress_ptr cinfo) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)cinfo;
    if (!clanes_buffer_reserve(&j->encoder->output, CLANES_JPEG_OUTPUT_CHUNK)) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_offer_space(j);
}

/* Called when the window is full: all of it has been written. */
static boolean jpeg_destination_empty(j_compress_ptr cinfo) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)cinfo;
    clanes_buffer *output = &j->encoder->output;
    if (j->encoder->options.fd >= 0) {
        jpeg_write_window(j, output->capacity); /* size stays 0: the same window again */
    } else {
        output->size = output->capacity;
        if (!clanes_buffer_reserve(output, CLANES_JPEG_OUTPUT_CHUNK)) {
            ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
        }
    }
    jpeg_offer_space(j);
    return TRUE;
}

static void jpeg_destination_term(j_compress_ptr cinfo) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)cinfo;
    size_t used = (size_t)(j->destination.next_output_byte - j->encoder->output.bytes);
    if (j->encoder->options.fd >= 0) {
        jpeg_write_window(j, used);
    } else {
        j->encoder->output.size = used;
    }
}

static inline uint32_t jpeg_sample16(const uint8_t *pixel, int32_t index, int32_t bytes_per_sample) {
    if (bytes_per_sample == 1) {
        return (uint32_t)pixel[index] * 257u;
    }
    uint16_t value;
    memcpy(&value, pixel + (size_t)index * 2, 2);
    return value;
}

/* One row of the caller's layout to 8-bit grey (1 sample) or RGB (3), alpha flattened on the background. */
static void jpeg_flatten_row(const jpeg_row_source *source, const uint8_t *row, uint8_t *out, uint32_t width) {
    size_t pixel_bytes = (size_t)source->channels * (size_t)source->bytes_per_sample;
    int colours = source->channels == 4 ? 3 : 1;
    int has_alpha = source->channels == 2 || source->channels == 4;
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *pixel = row + (size_t)x * pixel_bytes;
        uint32_t alpha = has_alpha ? jpeg_sample16(pixel, source->channels - 1, source->bytes_per_sample) : 65535u;
        for (int c = 0; c < colours; c++) {
            uint64_t value = jpeg_sample16(pixel, c, source->bytes_per_sample);
            value = (value * alpha + (uint64_t)source->background[c] * (65535u - alpha) + 32767u) / 65535u;
            out[(size_t)x * (size_t)colours + (size_t)c] = (uint8_t)((value * 255u + 32767u) / 65535u);
        }
    }
}

/* Points libjpeg's messages at the current call's buffer. */
static jpeg_encoder_state *jpeg_state(clanes_encoder *e) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)e->format_state;
    j->error.message = e->message;
    j->error.capacity = e->capacity;
    return j;
}

static int32_t jpeg_encoder_check(const clanes_encode_options *o, char *message, size_t capacity) {
    if (o->quality < 1 || o->quality > 100) {
        clanes_set_message(message, capacity, "JPEG quality %d is not 1...100", o->quality);
        return CLANES_ERR_ARGUMENT;
    }
    return CLANES_OK;
}

static int32_t jpeg_encoder_header(jpeg_encoder_state *j, const clanes_encode_options *o) {
    if (setjmp(j->error.jump)) {
        return j->error.status;
    }
    jpeg_create_compress(&j->cinfo);
    j->created = 1;
    j->destination.init_destination = jpeg_destination_init;
    j->destination.empty_output_buffer = jpeg_destination_empty;
    j->destination.term_destination = jpeg_destination_term;
    j->cinfo.dest = &j->destination;
    j->cinfo.image_width = o->width;
    j->cinfo.image_height = o->height;
    int grey = o->channels <= 2;
    j->cinfo.input_components = grey ? 1 : 3;
    j->cinfo.in_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&j->cinfo);
    jpeg_set_quality(&j->cinfo, o->quality, TRUE);
    /* Optimal Huffman tables need every coefficient of the image first: libjpeg then holds them all. */
    j->cinfo.optimize_coding = o->optimize_coding ? TRUE : FALSE;
    j->row = (uint8_t *)malloc((size_t)o->width * (grey ? 1 : 3));
    if (j->row == NULL) {
        ERREXIT(&j->cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_start_compress(&j->cinfo, TRUE);
    return CLANES_OK;
}

static int32_t jpeg_encoder_start(clanes_encoder *e) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)calloc(1, sizeof(jpeg_encoder_state));
    e->format_state = j;
    if (j == NULL) {
        clanes_set_message(e->message, e->capacity, "out of memory creating the JPEG encoder");
        return CLANES_ERR_NO_MEMORY;
    }
    const clanes_encode_options *o = &e->options;
    j->encoder = e;
    clanes_jpeg_install_errors((j_common_ptr)&j->cinfo, &j->error, e->message, e->capacity);
    j->source = (jpeg_row_source){o->channels, o->bytes_per_sample, {0, 0, 0}};
    uint32_t red = ((o->background >> 16) & 0xFF) * 257u, green = ((o->background >> 8) & 0xFF) * 257u;
    uint32_t blue = (o->background & 0xFF) * 257u;
    if (o->channels <= 2) {
        j->source.background[0] = (19595u * red + 38470u * green + 7471u * blue + 32768u) >> 16; /* Rec. 601 luma */
    } else {
        j->source.background[0] = red;
        j->source.background[1] = green;
        j->source.background[2] = blue;
    }
    return jpeg_encoder_header(j, o);
}

static int32_t jpeg_encoder_rows(clanes_encoder *e, const uint8_t *pixels, size_t bytes_per_row, uint32_t count) {
    jpeg_encoder_state *j = jpeg_state(e);
    if (setjmp(j->error.jump)) {
        return j->error.status;
    }
    for (uint32_t y = 0; y < count; y++) {
        jpeg_flatten_row(&j->source, pixels + (size_t)y * bytes_per_row, j->row, j->cinfo.image_width);
        JSAMPROW row = j->row;
        (void)jpeg_write_scanlines(&j->cinfo, &row, 1);
    }
    return CLANES_OK;
}

static int32_t jpeg_encoder_end(clanes_encoder *e) {
    jpeg_encoder_state *j = jpeg_state(e);
    if (setjmp(j->error.jump)) {
        return j->error.status;
    }
    jpeg_finish_compress(&j->cinfo);
    return CLANES_OK;
}

static void jpeg_encoder_destroy(clanes_encoder *e) {
    jpeg_encoder_state *j = (jpeg_encoder_state *)e->format_state;
    if (j == NULL) {
        return;
    }
    if (j->created) {
        jpeg_destroy_compress(&j->cinfo);
    }
    free(j->row);
    free(j);
    e->format_state = NULL;
}

const clanes_encoder_format clanes_jpeg_encoder_format = {
    "JPEG", JPEG_MAX_DIMENSION, jpeg_encoder_check, jpeg_encoder_start, jpeg_encoder_rows, jpeg_encoder_end,
    jpeg_encoder_destroy,
};
