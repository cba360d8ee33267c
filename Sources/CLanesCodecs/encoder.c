/*
 * The one row encoder (clanes_encoder_*, clanes_codecs.h): argument and state checks, the output (memory or a
 * descriptor) and the hand-out are here, once; each format (png_encoder.c, jpeg_encoder.c, webp_encode.c,
 * avif_encode.c) adds only what its library does, behind a clanes_encoder_format.
 */
#include "encoder_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int clanes_encoder_emit(clanes_encoder *e, const uint8_t *bytes, size_t length) {
    if (e->options.fd < 0) {
        if (!clanes_buffer_append(&e->output, bytes, length)) {
            e->out_of_memory = 1;
            return 0;
        }
        return 1;
    }
    while (length > 0) {
        ssize_t n = write(e->options.fd, bytes, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            e->io_errno = errno;
            return 0;
        }
        bytes += n;
        length -= (size_t)n;
        e->written += (size_t)n;
    }
    return 1;
}

/* A format call's status: on failure the encoder only accepts destroy, and a failed write says so. */
static int32_t encoder_settle(clanes_encoder *e, int32_t status) {
    if (status == CLANES_OK) {
        return CLANES_OK;
    }
    e->state = CLANES_ENCODER_FAILED;
    if (e->io_errno != 0) {
        clanes_set_message(e->message, e->capacity, "cannot write the %s: %s", e->format->name, strerror(e->io_errno));
        return CLANES_ERR_IO;
    }
    return e->out_of_memory ? CLANES_ERR_NO_MEMORY : status;
}

static const clanes_encoder_format *encoder_format(int32_t format) {
    switch (format) {
    case CLANES_FORMAT_PNG: return &clanes_png_encoder_format;
    case CLANES_FORMAT_JPEG: return &clanes_jpeg_encoder_format;
    case CLANES_FORMAT_WEBP: return &clanes_webp_encoder_format;
    case CLANES_FORMAT_AVIF: return &clanes_avif_encoder_format;
    default: return NULL;
    }
}

int32_t clanes_encoder_begin(const clanes_encode_options *options, clanes_encoder **encoder,
                             char *message, size_t message_capacity) {
    if (options == NULL || encoder == NULL) {
        clanes_set_message(message, message_capacity, "no options or no encoder pointer");
        return CLANES_ERR_ARGUMENT;
    }
    *encoder = NULL;
    const clanes_encoder_format *format = encoder_format(options->format);
    if (format == NULL) {
        clanes_set_message(message, message_capacity, "no encoder for format %d", options->format);
        return CLANES_ERR_ARGUMENT;
    }
    uint32_t width = options->width, height = options->height;
    if (width == 0 || height == 0) {
        clanes_set_message(message, message_capacity, "empty image (%ux%u)", width, height);
        return CLANES_ERR_ARGUMENT;
    }
    if (width > format->max_side || height > format->max_side) {
        clanes_set_message(message, message_capacity, "%s cannot hold %ux%u (max %u per side)", format->name, width,
                           height, format->max_side);
        return CLANES_ERR_TOO_LARGE;
    }
    int32_t status = clanes_layout_is_valid(options->channels, options->bytes_per_sample, message, message_capacity)
        ? format->check(options, message, message_capacity) : CLANES_ERR_ARGUMENT;
    if (status != CLANES_OK) {
        return status;
    }
    clanes_encoder *e = (clanes_encoder *)calloc(1, sizeof(clanes_encoder));
    if (e == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating the %s encoder", format->name);
        return CLANES_ERR_NO_MEMORY;
    }
    e->options = *options;
    e->format = format;
    e->row_bytes = (size_t)width * (size_t)options->channels * (size_t)options->bytes_per_sample;
    e->message = message;
    e->capacity = message_capacity;
    *encoder = e;
    return encoder_settle(e, format->start(e));
}

/* Refuses a call on an encoder that failed or finished; points its messages at this call's buffer. */
static int32_t encoder_check_open(clanes_encoder *e, char *message, size_t capacity) {
    if (e == NULL) {
        clanes_set_message(message, capacity, "no encoder");
        return CLANES_ERR_ARGUMENT;
    }
    if (e->state != CLANES_ENCODER_OPEN) {
        clanes_set_message(message, capacity, "the %s encoder %s", e->format->name,
                           e->state == CLANES_ENCODER_FINISHED ? "is already finished" : "failed earlier");
        return CLANES_ERR_ARGUMENT;
    }
    e->message = message;
    e->capacity = capacity;
    return CLANES_OK;
}

int32_t clanes_encoder_write_rows(clanes_encoder *e, const uint8_t *pixels, size_t bytes_per_row, uint32_t count,
                                  char *message, size_t message_capacity) {
    int32_t status = encoder_check_open(e, message, message_capacity);
    if (status != CLANES_OK || count == 0) {
        return status;
    }
    if (pixels == NULL || bytes_per_row < e->row_bytes) {
        clanes_set_message(message, message_capacity, "no pixels or bytes_per_row %zu < %zu bytes of a row",
                           bytes_per_row, e->row_bytes);
        return CLANES_ERR_ARGUMENT;
    }
    if (count > e->options.height - e->rows) {
        clanes_set_message(message, message_capacity, "%u more rows would exceed the height %u (%u written)", count,
                           e->options.height, e->rows);
        return CLANES_ERR_ARGUMENT;
    }
    status = encoder_settle(e, e->format->rows(e, pixels, bytes_per_row, count));
    if (status == CLANES_OK) {
        e->rows += count;
    }
    return status;
}

uint32_t clanes_encoder_rows_written(const clanes_encoder *e) {
    return e ? e->rows : 0;
}

int32_t clanes_encoder_finish(clanes_encoder *e, uint8_t **out, size_t *out_size,
                              char *message, size_t message_capacity) {
    if (out != NULL) *out = NULL;
    if (out_size != NULL) *out_size = 0;
    int32_t status = encoder_check_open(e, message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (e->rows != e->options.height) {
        clanes_set_message(message, message_capacity, "only %u of %u rows were written", e->rows, e->options.height);
        return CLANES_ERR_ARGUMENT;
    }
    status = encoder_settle(e, e->format->end(e));
    if (status != CLANES_OK) {
        return status;
    }
    e->state = CLANES_ENCODER_FINISHED;
    int to_memory = e->options.fd < 0;
    if (out_size != NULL) {
        *out_size = to_memory ? e->output.size : e->written;
    }
    if (to_memory && out != NULL) {
        *out = e->output.bytes; /* the caller frees it */
        e->output = (clanes_buffer){NULL, 0, 0};
    }
    return CLANES_OK;
}

void clanes_encoder_destroy(clanes_encoder *e) {
    if (e == NULL) {
        return;
    }
    e->format->destroy(e);
    free(e->output.bytes);
    free(e);
}
