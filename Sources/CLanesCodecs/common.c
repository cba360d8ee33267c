#include "clanes_codecs.h"
#include "codecs_internal.h"

#include <stdio.h>
#include <stdlib.h>

void clanes_set_message(char *message, size_t capacity, const char *format, ...) {
    if (message == NULL || capacity == 0) {
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(message, capacity, format, args);
    va_end(args);
}

int32_t clanes_check_bitmap_arguments(const void *pixels, size_t bytes_per_row,
                                      uint32_t width, uint32_t height,
                                      char *message, size_t capacity) {
    if (pixels == NULL) {
        clanes_set_message(message, capacity, "no pixel buffer");
        return CLANES_ERR_ARGUMENT;
    }
    if (width == 0 || height == 0) {
        clanes_set_message(message, capacity, "empty image (%ux%u)", width, height);
        return CLANES_ERR_ARGUMENT;
    }
    if (bytes_per_row < (size_t)width * 4) {
        clanes_set_message(message, capacity, "bytes_per_row %zu is less than 4 * width (%u)",
                           bytes_per_row, width);
        return CLANES_ERR_ARGUMENT;
    }
    if ((size_t)height > SIZE_MAX / bytes_per_row) {
        clanes_set_message(message, capacity, "image of %ux%u does not fit in memory", width, height);
        return CLANES_ERR_TOO_LARGE;
    }
    return CLANES_OK;
}

void clanes_free(void *buffer) {
    free(buffer);
}
