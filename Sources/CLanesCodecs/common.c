#include "clanes_codecs.h"
#include "codecs_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void clanes_set_message(char *message, size_t capacity, const char *format, ...) {
    if (message == NULL || capacity == 0) {
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
}

/* 1 for 1, 2 or 4 channels of 1 or 2 bytes; else 0, saying so in `message`. */
static int clanes_layout_is_valid(int32_t channels, int32_t bytes_per_sample, char *message, size_t capacity) {
    if ((channels != 1 && channels != 2 && channels != 4) || (bytes_per_sample != 1 && bytes_per_sample != 2)) {
        clanes_set_message(message, capacity, "no layout of %d channels of %d bytes", channels, bytes_per_sample);
        return 0;
    }
    return 1;
}

int32_t clanes_check_layout_arguments(const void *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                      int32_t channels, int32_t bytes_per_sample,
                                      char *message, size_t capacity) {
    if (pixels == NULL) {
        clanes_set_message(message, capacity, "no pixel buffer");
        return CLANES_ERR_ARGUMENT;
    }
    if (width == 0 || height == 0) {
        clanes_set_message(message, capacity, "empty image (%ux%u)", width, height);
        return CLANES_ERR_ARGUMENT;
    }
    if (!clanes_layout_is_valid(channels, bytes_per_sample, message, capacity)) {
        return CLANES_ERR_ARGUMENT;
    }
    size_t pixel_bytes = (size_t)channels * (size_t)bytes_per_sample;
    if ((size_t)width > SIZE_MAX / pixel_bytes || bytes_per_row < (size_t)width * pixel_bytes) {
        clanes_set_message(message, capacity, "bytes_per_row %zu is less than %zu * width (%u)",
                           bytes_per_row, pixel_bytes, width);
        return CLANES_ERR_ARGUMENT;
    }
    if ((size_t)height > SIZE_MAX / bytes_per_row) {
        clanes_set_message(message, capacity, "image of %ux%u does not fit in memory", width, height);
        return CLANES_ERR_TOO_LARGE;
    }
    return CLANES_OK;
}

int32_t clanes_check_bitmap_arguments(const void *pixels, size_t bytes_per_row,
                                      uint32_t width, uint32_t height,
                                      char *message, size_t capacity) {
    return clanes_check_layout_arguments(pixels, bytes_per_row, width, height, 4, 1, message, capacity);
}

int clanes_buffer_reserve(clanes_buffer *buffer, size_t extra) {
    if (extra <= buffer->capacity - buffer->size) {
        return 1;
    }
    if (extra > SIZE_MAX - buffer->size) {
        return 0;
    }
    size_t wanted = buffer->size + extra;
    size_t grown = buffer->capacity < 4096 ? 4096 : buffer->capacity;
    while (grown < wanted) {
        grown = grown > SIZE_MAX / 2 ? wanted : grown * 2;
    }
    uint8_t *bigger = (uint8_t *)realloc(buffer->bytes, grown);
    if (bigger == NULL) {
        return 0;
    }
    buffer->bytes = bigger;
    buffer->capacity = grown;
    return 1;
}

int clanes_buffer_append(clanes_buffer *buffer, const void *bytes, size_t length) {
    if (!clanes_buffer_reserve(buffer, length)) {
        return 0;
    }
    if (length > 0) {
        memcpy(buffer->bytes + buffer->size, bytes, length);
        buffer->size += length;
    }
    return 1;
}

int32_t clanes_stream_check_begin(int has_pointer, uint32_t width, uint32_t height, uint32_t max_side, const char *codec,
                                  int32_t channels, int32_t bytes_per_sample, char *message, size_t capacity) {
    if (!has_pointer) {
        clanes_set_message(message, capacity, "no stream pointer");
        return CLANES_ERR_ARGUMENT;
    }
    if (width == 0 || height == 0) {
        clanes_set_message(message, capacity, "empty image (%ux%u)", width, height);
        return CLANES_ERR_ARGUMENT;
    }
    if (width > max_side || height > max_side) {
        clanes_set_message(message, capacity, "%s cannot hold %ux%u (max %u per side)", codec, width, height, max_side);
        return CLANES_ERR_TOO_LARGE;
    }
    return clanes_layout_is_valid(channels, bytes_per_sample, message, capacity) ? CLANES_OK : CLANES_ERR_ARGUMENT;
}

int32_t clanes_stream_check_open(const void *stream, int state, const char *codec, char *message, size_t capacity) {
    if (stream == NULL) {
        clanes_set_message(message, capacity, "no stream");
        return CLANES_ERR_ARGUMENT;
    }
    if (state != CLANES_STREAM_OPEN) {
        clanes_set_message(message, capacity, "the %s stream %s", codec,
                           state == CLANES_STREAM_FINISHED ? "is already finished" : "failed earlier");
        return CLANES_ERR_ARGUMENT;
    }
    return CLANES_OK;
}

int32_t clanes_stream_check_rows(const uint8_t *pixels, size_t bytes_per_row, size_t row_bytes, uint32_t count,
                                 uint32_t done, uint32_t height, char *message, size_t capacity) {
    if (pixels == NULL || bytes_per_row < row_bytes) {
        clanes_set_message(message, capacity, "no pixels or bytes_per_row %zu < %zu bytes of a row", bytes_per_row,
                           row_bytes);
        return CLANES_ERR_ARGUMENT;
    }
    if (count > height - done) {
        clanes_set_message(message, capacity, "%u more rows would exceed the height %u (%u written)", count, height,
                           done);
        return CLANES_ERR_ARGUMENT;
    }
    return CLANES_OK;
}

int32_t clanes_stream_check_complete(uint32_t rows, uint32_t height, char *message, size_t capacity) {
    if (rows != height) {
        clanes_set_message(message, capacity, "only %u of %u rows were written", rows, height);
        return CLANES_ERR_ARGUMENT;
    }
    return CLANES_OK;
}

int clanes_write_all(int fd, const uint8_t *bytes, size_t length, size_t *written) {
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        bytes += n;
        length -= (size_t)n;
        *written += (size_t)n;
    }
    return 0;
}

void clanes_stream_hand_out(clanes_buffer *output, int fd, size_t written, uint8_t **out, size_t *out_size) {
    if (out_size != NULL) {
        *out_size = fd < 0 ? output->size : written;
    }
    if (fd < 0 && out != NULL) {
        *out = output->bytes; /* the caller frees it */
        *output = (clanes_buffer){NULL, 0, 0};
    }
}

void clanes_free(void *buffer) {
    free(buffer);
}
