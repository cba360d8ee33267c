/*
 * JPEG encoding over libjpeg-turbo, a row at a time: clanes_jpeg_stream_* take rows top to bottom and write the
 * bytes to a file descriptor as libjpeg makes them (or into memory); clanes_jpeg_encode_layout is the same stream
 * fed a whole bitmap, so both give the same bytes. Each entry point sets its own setjmp before calling libjpeg, so a
 * longjmp never leaves this file; every value read after one lives in the heap-allocated stream.
 */
#include "clanes_codecs.h"
#include "codecs_internal.h"

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

struct clanes_jpeg_stream {
    struct jpeg_compress_struct cinfo; /* first, so the j_compress_ptr libjpeg passes back casts to the stream */
    jpeg_error_context error;
    struct jpeg_destination_mgr destination;
    clanes_buffer output; /* fd < 0: the whole file; otherwise one window, written to fd each time it fills */
    jpeg_row_source source;
    uint8_t *row;         /* one flattened 8-bit row */
    size_t row_bytes;     /* width * channels * bytes per sample of the caller's rows */
    int fd;
    size_t written;       /* bytes written to fd */
    int io_errno;
    int state;
};

/* libjpeg writes straight into the growable buffer: the free space after `size` is its window. */
#define CLANES_JPEG_OUTPUT_CHUNK 65536

static void jpeg_offer_space(clanes_jpeg_stream *s) {
    s->destination.next_output_byte = s->output.bytes + s->output.size;
    s->destination.free_in_buffer = s->output.capacity - s->output.size;
}

/* Writes the first `length` bytes of the window to the descriptor; ERREXITs on failure. */
static void jpeg_write_window(clanes_jpeg_stream *s, size_t length) {
    s->io_errno = clanes_write_all(s->fd, s->output.bytes, length, &s->written);
    if (s->io_errno != 0) {
        ERREXIT(&s->cinfo, JERR_FILE_WRITE);
    }
}

static void jpeg_destination_init(j_compress_ptr cinfo) {
    clanes_jpeg_stream *s = (clanes_jpeg_stream *)cinfo;
    if (!clanes_buffer_reserve(&s->output, CLANES_JPEG_OUTPUT_CHUNK)) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_offer_space(s);
}

/* Called when the window is full: all of it has been written. */
static boolean jpeg_destination_empty(j_compress_ptr cinfo) {
    clanes_jpeg_stream *s = (clanes_jpeg_stream *)cinfo;
    if (s->fd >= 0) {
        jpeg_write_window(s, s->output.capacity); /* size stays 0: the same window again */
    } else {
        s->output.size = s->output.capacity;
        if (!clanes_buffer_reserve(&s->output, CLANES_JPEG_OUTPUT_CHUNK)) {
            ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
        }
    }
    jpeg_offer_space(s);
    return TRUE;
}

static void jpeg_destination_term(j_compress_ptr cinfo) {
    clanes_jpeg_stream *s = (clanes_jpeg_stream *)cinfo;
    size_t used = (size_t)(s->destination.next_output_byte - s->output.bytes);
    if (s->fd >= 0) {
        jpeg_write_window(s, used);
    } else {
        s->output.size = used;
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

/* The status after a longjmp out of libjpeg; rewrites the message for an I/O failure. */
static int32_t stream_failed(clanes_jpeg_stream *s) {
    s->state = CLANES_STREAM_FAILED;
    if (s->io_errno != 0) {
        clanes_set_message(s->error.message, s->error.capacity, "cannot write the JPEG: %s", strerror(s->io_errno));
        return CLANES_ERR_IO;
    }
    return s->error.status;
}

static int32_t stream_start(clanes_jpeg_stream *s, uint32_t width, uint32_t height, int32_t quality,
                            int32_t optimize_coding) {
    if (setjmp(s->error.jump)) {
        return stream_failed(s);
    }
    jpeg_create_compress(&s->cinfo);
    s->destination.init_destination = jpeg_destination_init;
    s->destination.empty_output_buffer = jpeg_destination_empty;
    s->destination.term_destination = jpeg_destination_term;
    s->cinfo.dest = &s->destination;
    s->cinfo.image_width = width;
    s->cinfo.image_height = height;
    int grey = s->source.channels <= 2;
    s->cinfo.input_components = grey ? 1 : 3;
    s->cinfo.in_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&s->cinfo);
    jpeg_set_quality(&s->cinfo, quality, TRUE);
    /* Optimal Huffman tables need every coefficient of the image first: libjpeg then holds them all. */
    s->cinfo.optimize_coding = optimize_coding ? TRUE : FALSE;
    s->row = (uint8_t *)malloc((size_t)width * (grey ? 1 : 3));
    if (s->row == NULL) {
        ERREXIT(&s->cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_start_compress(&s->cinfo, TRUE);
    return CLANES_OK;
}

int32_t clanes_jpeg_stream_begin(uint32_t width, uint32_t height, int32_t channels, int32_t bytes_per_sample,
                                 uint32_t background, int32_t quality, int32_t optimize_coding, int fd,
                                 clanes_jpeg_stream **stream, char *message, size_t message_capacity) {
    int32_t status = clanes_stream_check_begin(stream != NULL, width, height, JPEG_MAX_DIMENSION, "JPEG", channels,
                                               bytes_per_sample, message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    *stream = NULL;
    if (quality < 1 || quality > 100) {
        clanes_set_message(message, message_capacity, "JPEG quality %d is not 1...100", quality);
        return CLANES_ERR_ARGUMENT;
    }
    clanes_jpeg_stream *s = (clanes_jpeg_stream *)calloc(1, sizeof(clanes_jpeg_stream));
    if (s == NULL) {
        clanes_set_message(message, message_capacity, "out of memory creating the JPEG encoder");
        return CLANES_ERR_NO_MEMORY;
    }
    clanes_jpeg_install_errors(&s->error, message, message_capacity);
    s->cinfo.err = &s->error.manager;
    s->fd = fd;
    s->row_bytes = (size_t)width * (size_t)channels * (size_t)bytes_per_sample;
    s->source = (jpeg_row_source){channels, bytes_per_sample, {0, 0, 0}};
    uint32_t red = ((background >> 16) & 0xFF) * 257u, green = ((background >> 8) & 0xFF) * 257u;
    uint32_t blue = (background & 0xFF) * 257u;
    if (channels <= 2) {
        s->source.background[0] = (19595u * red + 38470u * green + 7471u * blue + 32768u) >> 16; /* Rec. 601 luma */
    } else {
        s->source.background[0] = red;
        s->source.background[1] = green;
        s->source.background[2] = blue;
    }
    *stream = s;
    return stream_start(s, width, height, quality, optimize_coding);
}

/* Refuses a call on a stream that failed or finished; points error messages at this call's buffer. */
static int32_t stream_check_open(clanes_jpeg_stream *s, char *message, size_t capacity) {
    int32_t status = clanes_stream_check_open(s, s ? s->state : 0, "JPEG", message, capacity);
    if (status != CLANES_OK) {
        return status;
    }
    s->error.message = message;
    s->error.capacity = capacity;
    return CLANES_OK;
}

static int32_t stream_rows(clanes_jpeg_stream *s, const uint8_t *pixels, size_t bytes_per_row, uint32_t count) {
    if (setjmp(s->error.jump)) {
        return stream_failed(s);
    }
    for (uint32_t y = 0; y < count; y++) {
        jpeg_flatten_row(&s->source, pixels + (size_t)y * bytes_per_row, s->row, s->cinfo.image_width);
        JSAMPROW row = s->row;
        (void)jpeg_write_scanlines(&s->cinfo, &row, 1);
    }
    return CLANES_OK;
}

int32_t clanes_jpeg_stream_write_rows(clanes_jpeg_stream *stream, const uint8_t *pixels, size_t bytes_per_row,
                                      uint32_t count, char *message, size_t message_capacity) {
    int32_t status = stream_check_open(stream, message, message_capacity);
    if (status != CLANES_OK || count == 0) {
        return status;
    }
    status = clanes_stream_check_rows(pixels, bytes_per_row, stream->row_bytes, count, stream->cinfo.next_scanline,
                                      stream->cinfo.image_height, message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    return stream_rows(stream, pixels, bytes_per_row, count);
}

uint32_t clanes_jpeg_stream_rows_written(const clanes_jpeg_stream *stream) {
    return stream ? stream->cinfo.next_scanline : 0;
}

static int32_t stream_end(clanes_jpeg_stream *s) {
    if (setjmp(s->error.jump)) {
        return stream_failed(s);
    }
    jpeg_finish_compress(&s->cinfo);
    s->state = CLANES_STREAM_FINISHED;
    return CLANES_OK;
}

int32_t clanes_jpeg_stream_finish(clanes_jpeg_stream *stream, uint8_t **out, size_t *out_size,
                                  char *message, size_t message_capacity) {
    if (out != NULL) *out = NULL;
    if (out_size != NULL) *out_size = 0;
    int32_t status = stream_check_open(stream, message, message_capacity);
    status = status ? status : clanes_stream_check_complete(stream->cinfo.next_scanline, stream->cinfo.image_height,
                                                            message, message_capacity);
    status = status ? status : stream_end(stream);
    if (status == CLANES_OK) {
        clanes_stream_hand_out(&stream->output, stream->fd, stream->written, out, out_size);
    }
    return status;
}

void clanes_jpeg_stream_destroy(clanes_jpeg_stream *stream) {
    if (stream == NULL) {
        return;
    }
    jpeg_destroy_compress(&stream->cinfo);
    free(stream->row);
    free(stream->output.bytes);
    free(stream);
}

/* ---------- a whole bitmap: the stream fed every row ---------- */

int32_t clanes_jpeg_encode_layout(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                  int32_t channels, int32_t bytes_per_sample, uint32_t background,
                                  int32_t quality, int32_t optimize_coding, uint8_t **out, size_t *out_size,
                                  char *message, size_t message_capacity) {
    int32_t status = clanes_check_layout_arguments(pixels, bytes_per_row, width, height, channels, bytes_per_sample,
                                                   message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (out == NULL || out_size == NULL) {
        clanes_set_message(message, message_capacity, "no output pointers");
        return CLANES_ERR_ARGUMENT;
    }
    *out = NULL;
    *out_size = 0;
    clanes_jpeg_stream *stream = NULL;
    status = clanes_jpeg_stream_begin(width, height, channels, bytes_per_sample, background, quality, optimize_coding,
                                      -1, &stream, message, message_capacity);
    if (status == CLANES_OK) {
        status = clanes_jpeg_stream_write_rows(stream, pixels, bytes_per_row, height, message, message_capacity);
    }
    if (status == CLANES_OK) {
        status = clanes_jpeg_stream_finish(stream, out, out_size, message, message_capacity);
    }
    clanes_jpeg_stream_destroy(stream);
    return status;
}
