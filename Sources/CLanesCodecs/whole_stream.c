/*
 * The row gathering the WebP and AVIF encoders share: rows are copied into one RGBA8 canvas, and the format's encode
 * call runs on it at finish (neither library encodes a row at a time).
 */
#include "clanes_codecs.h"
#include "whole_stream_internal.h"

#include <stdlib.h>
#include <string.h>

int32_t clanes_whole_stream_create(const clanes_whole_encode_options *options, uint32_t max_side, const char *codec,
                                   clanes_whole_encode_fn encode, clanes_whole_stream **stream,
                                   char *message, size_t capacity) {
    if (options == NULL) {
        clanes_set_message(message, capacity, "no options");
        return CLANES_ERR_ARGUMENT;
    }
    int32_t status = clanes_stream_check_begin(stream != NULL, options->width, options->height, max_side, codec, 4, 1,
                                               message, capacity);
    if (status != CLANES_OK) return status;
    *stream = NULL;
    if (options->quality < 0 || options->quality > 100) {
        clanes_set_message(message, capacity, "%s quality %d is not 0...100", codec, options->quality);
        return CLANES_ERR_ARGUMENT;
    }
    size_t bytes = (size_t)options->width * options->height * 4; /* both sides <= max_side (< 2^17): no overflow */
    clanes_whole_stream *made = calloc(1, sizeof *made);
    uint8_t *canvas = made != NULL ? malloc(bytes) : NULL;
    if (canvas == NULL) {
        free(made);
        clanes_set_message(message, capacity, "cannot allocate the %ux%u %s canvas (%zu bytes)", options->width,
                           options->height, codec, bytes);
        return CLANES_ERR_NO_MEMORY;
    }
    made->options = *options;
    made->codec = codec;
    made->encode = encode;
    made->canvas = canvas;
    made->state = CLANES_STREAM_OPEN;
    *stream = made;
    return CLANES_OK;
}

int32_t clanes_whole_stream_write_rows(clanes_whole_stream *stream, const uint8_t *rows, size_t bytes_per_row,
                                       uint32_t count, char *message, size_t message_capacity) {
    int32_t status = clanes_stream_check_open(stream, stream != NULL ? stream->state : 0,
                                              stream != NULL ? stream->codec : "", message, message_capacity);
    if (status != CLANES_OK) return status;
    size_t row_bytes = (size_t)stream->options.width * 4;
    status = clanes_stream_check_rows(rows, bytes_per_row, row_bytes, count, stream->rows, stream->options.height,
                                      message, message_capacity);
    if (status != CLANES_OK) return status;
    for (uint32_t y = 0; y < count; y++) {
        memcpy(stream->canvas + (size_t)(stream->rows + y) * row_bytes, rows + (size_t)y * bytes_per_row, row_bytes);
    }
    stream->rows += count;
    return CLANES_OK;
}

int32_t clanes_whole_stream_finish(clanes_whole_stream *stream, uint8_t **out, size_t *out_size,
                                   char *message, size_t message_capacity) {
    if (out != NULL) *out = NULL;
    if (out_size != NULL) *out_size = 0;
    int32_t status = clanes_stream_check_open(stream, stream != NULL ? stream->state : 0,
                                              stream != NULL ? stream->codec : "", message, message_capacity);
    if (status != CLANES_OK) return status;
    status = clanes_stream_check_complete(stream->rows, stream->options.height, message, message_capacity);
    if (status != CLANES_OK) return status;
    clanes_buffer output = {NULL, 0, 0};
    status = stream->encode(stream, &output, message, message_capacity);
    free(stream->canvas); /* the pixels are no longer needed, whatever happened */
    stream->canvas = NULL;
    size_t written = 0;
    if (status == CLANES_OK && stream->options.fd >= 0) {
        int error = clanes_write_all(stream->options.fd, output.bytes, output.size, &written);
        if (error != 0) {
            clanes_set_message(message, message_capacity, "writing the %s failed: %s", stream->codec, strerror(error));
            status = CLANES_ERR_IO;
        }
    }
    if (status != CLANES_OK) {
        free(output.bytes);
        stream->state = CLANES_STREAM_FAILED;
        return status;
    }
    stream->state = CLANES_STREAM_FINISHED;
    clanes_stream_hand_out(&output, stream->options.fd, written, out, out_size);
    free(output.bytes); /* NULL when handed out */
    return CLANES_OK;
}

uint32_t clanes_whole_stream_rows_written(const clanes_whole_stream *stream) {
    return stream != NULL ? stream->rows : 0;
}

void clanes_whole_stream_destroy(clanes_whole_stream *stream) {
    if (stream == NULL) return;
    free(stream->canvas);
    free(stream);
}
