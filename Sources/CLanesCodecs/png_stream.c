/*
 * A row-at-a-time PNG encoder over libpng. Each entry point sets its own setjmp before calling
 * libpng, so a longjmp never leaves this file; every value read after one lives in the
 * heap-allocated stream, never in an indeterminate local.
 */
#include "clanes_codecs.h"
#include "codecs_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

struct clanes_png_stream {
    png_structp png;
    png_infop info;
    uint32_t width;
    uint32_t height;
    uint32_t rows;
    size_t row_bytes;      /* width * channels * bytes per sample */
    int state;
    int fd;
    clanes_buffer output;  /* when fd < 0 */
    size_t written;        /* bytes written to fd */
    int out_of_memory;
    int io_errno;
    char *message;         /* the current call's message buffer */
    size_t capacity;
};

static void stream_error(png_structp png, png_const_charp text) {
    clanes_png_stream *s = (clanes_png_stream *)png_get_error_ptr(png);
    clanes_set_message(s->message, s->capacity, "PNG encoder: %s", text);
    png_longjmp(png, 1);
}

static void stream_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void stream_write(png_structp png, png_bytep bytes, size_t length) {
    clanes_png_stream *s = (clanes_png_stream *)png_get_io_ptr(png);
    if (s->fd < 0) {
        if (!clanes_buffer_append(&s->output, bytes, length)) {
            s->out_of_memory = 1;
            png_error(png, "out of memory");
        }
        return;
    }
    s->io_errno = clanes_write_all(s->fd, bytes, length, &s->written);
    if (s->io_errno != 0) {
        png_error(png, "write failed");
    }
}

static void stream_flush(png_structp png) {
    (void)png;
}

/* The status for a longjmp out of libpng; rewrites the message for an I/O failure. */
static int32_t stream_failed(clanes_png_stream *s) {
    s->state = CLANES_STREAM_FAILED;
    if (s->io_errno != 0) {
        clanes_set_message(s->message, s->capacity, "cannot write the PNG: %s", strerror(s->io_errno));
        return CLANES_ERR_IO;
    }
    return s->out_of_memory ? CLANES_ERR_NO_MEMORY : CLANES_ERR_ENCODE;
}

static int32_t stream_start(clanes_png_stream *s, int32_t channels, int32_t bytes_per_sample, int32_t has_alpha,
                            int32_t level, int32_t filters) {
    if (setjmp(png_jmpbuf(s->png))) {
        return stream_failed(s);
    }
    int opaque = !has_alpha || channels == 1;
    png_set_write_fn(s->png, s, stream_write, stream_flush);
    png_set_compression_level(s->png, level);
    png_set_filter(s->png, PNG_FILTER_TYPE_BASE, clanes_png_filter_mask(filters));
    png_set_IHDR(s->png, s->info, s->width, s->height, 8 * bytes_per_sample, clanes_png_colour_type(channels, opaque),
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(s->png, s->info);
    if (opaque && channels != 1) {
        png_set_filler(s->png, 0, PNG_FILLER_AFTER); /* drop the alpha sample of each pixel */
    }
    if (bytes_per_sample == 2 && clanes_host_is_little_endian()) {
        png_set_swap(s->png);
    }
    return CLANES_OK;
}

int32_t clanes_png_stream_begin_layout(uint32_t width, uint32_t height, int32_t channels, int32_t bytes_per_sample,
                                       int32_t has_alpha, int32_t compression_level, int32_t filters, int fd,
                                       clanes_png_stream **stream, char *message, size_t message_capacity) {
    int32_t status = clanes_stream_check_begin(stream != NULL, width, height, 0x7FFFFFFFu, "PNG", channels,
                                               bytes_per_sample, message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    *stream = NULL;
    if (compression_level < 0 || compression_level > 9) {
        clanes_set_message(message, message_capacity, "bad compression level %d", compression_level);
        return CLANES_ERR_ARGUMENT;
    }
    if ((filters & CLANES_PNG_FILTER_ALL) == 0 || (filters & ~CLANES_PNG_FILTER_ALL) != 0) {
        clanes_set_message(message, message_capacity, "bad PNG filter flags 0x%x", (unsigned)filters);
        return CLANES_ERR_ARGUMENT;
    }
    clanes_png_stream *s = (clanes_png_stream *)calloc(1, sizeof(clanes_png_stream));
    if (s == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating the PNG encoder");
        return CLANES_ERR_NO_MEMORY;
    }
    s->width = width;
    s->height = height;
    s->row_bytes = (size_t)width * (size_t)channels * (size_t)bytes_per_sample;
    s->fd = fd;
    s->message = message;
    s->capacity = message_capacity;
    s->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, s, stream_error, stream_warning);
    s->info = s->png ? png_create_info_struct(s->png) : NULL;
    if (s->png == NULL || s->info == NULL) {
        clanes_png_stream_destroy(s);
        clanes_set_message(message, message_capacity, "out of memory creating the PNG encoder");
        return CLANES_ERR_NO_MEMORY;
    }
    *stream = s;
    return stream_start(s, channels, bytes_per_sample, has_alpha, compression_level, filters);
}

/* Refuses a call on a stream that failed or finished. */
static int32_t stream_check_open(clanes_png_stream *s, char *message, size_t capacity) {
    int32_t status = clanes_stream_check_open(s, s ? s->state : 0, "PNG", message, capacity);
    if (status != CLANES_OK) {
        return status;
    }
    s->message = message;
    s->capacity = capacity;
    return CLANES_OK;
}

static int32_t stream_rows(clanes_png_stream *s, const uint8_t *pixels, size_t bytes_per_row, uint32_t count) {
    if (setjmp(png_jmpbuf(s->png))) {
        return stream_failed(s);
    }
    for (uint32_t y = 0; y < count; y++) {
        png_write_row(s->png, pixels + (size_t)y * bytes_per_row);
        s->rows++;
    }
    return CLANES_OK;
}

int32_t clanes_png_stream_write_rows(clanes_png_stream *stream, const uint8_t *pixels, size_t bytes_per_row,
                                     uint32_t count, char *message, size_t message_capacity) {
    int32_t status = stream_check_open(stream, message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (count == 0) {
        return CLANES_OK;
    }
    status = clanes_stream_check_rows(pixels, bytes_per_row, stream->row_bytes, count, stream->rows, stream->height,
                                      message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    return stream_rows(stream, pixels, bytes_per_row, count);
}

uint32_t clanes_png_stream_rows_written(const clanes_png_stream *stream) {
    return stream ? stream->rows : 0;
}

static int32_t stream_end(clanes_png_stream *s) {
    if (setjmp(png_jmpbuf(s->png))) {
        return stream_failed(s);
    }
    png_write_end(s->png, s->info);
    s->state = CLANES_STREAM_FINISHED;
    return CLANES_OK;
}

int32_t clanes_png_stream_finish(clanes_png_stream *stream, uint8_t **out, size_t *out_size,
                                 char *message, size_t message_capacity) {
    if (out != NULL) *out = NULL;
    if (out_size != NULL) *out_size = 0;
    int32_t status = stream_check_open(stream, message, message_capacity);
    status = status ? status : clanes_stream_check_complete(stream->rows, stream->height, message, message_capacity);
    status = status ? status : stream_end(stream);
    if (status == CLANES_OK) {
        clanes_stream_hand_out(&stream->output, stream->fd, stream->written, out, out_size);
    }
    return status;
}

void clanes_png_stream_destroy(clanes_png_stream *stream) {
    if (stream == NULL) {
        return;
    }
    if (stream->png != NULL) {
        png_destroy_write_struct(&stream->png, stream->info ? &stream->info : NULL);
    }
    free(stream->output.bytes);
    free(stream);
}
