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
int clanes_layout_is_valid(int32_t channels, int32_t bytes_per_sample, char *message, size_t capacity) {
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

void clanes_free(void *buffer) {
    free(buffer);
}
