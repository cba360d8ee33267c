/*
 * The PNG part's rows (rows_internal.h): libpng's row reader over the core's input (memory or pread). A
 * non-interlaced PNG holds libpng's row and previous row; an interlaced one is decoded whole at the first read (a row
 * is final only after the seventh pass). All libpng state lives in the heap, so it stays valid after a longjmp; every
 * function that calls into libpng sets its own setjmp.
 */
#include "codecs_internal.h"
#include "rows_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

typedef struct png_rows_state {
    png_structp png;
    png_infop info;
    uint8_t *whole;      /* an interlaced PNG's pixels */
    png_bytep *pointers; /* its row pointers */
} png_rows_state;

static void png_rows_error(png_structp png, png_const_charp text) {
    clanes_row_decoder *d = (clanes_row_decoder *)png_get_error_ptr(png);
    clanes_png_raise(png, d->message, d->capacity, "PNG", text);
}

static void png_rows_input(png_structp png, png_bytep out, size_t length) {
    clanes_row_decoder *d = (clanes_row_decoder *)png_get_io_ptr(png);
    if (clanes_rows_read_input(d, out, length) != length) {
        d->truncated = !d->io_error;
        png_error(png, d->io_error ? "cannot read the file" : "unexpected end of data");
    }
}

static int32_t png_rows_failure(const clanes_row_decoder *d) {
    return d->truncated ? CLANES_ERR_TRUNCATED : d->io_error ? CLANES_ERR_IO : CLANES_ERR_CORRUPT;
}

static int32_t png_rows_open(clanes_row_decoder *d, const clanes_row_request *request) {
    int32_t channels = request->channels, bytes_per_sample = request->bytes_per_sample;
    png_rows_state *s = (png_rows_state *)calloc(1, sizeof(png_rows_state));
    d->state = s;
    int32_t status = s == NULL ? CLANES_ERR_NO_MEMORY
        : clanes_png_create_reader(d, png_rows_error, &s->png, &s->info, d->message, d->capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        return png_rows_failure(d);
    }
    png_set_read_fn(s->png, d, png_rows_input);
    png_read_info(s->png, s->info);
    d->layout.width = png_get_image_width(s->png, s->info);
    d->layout.height = png_get_image_height(s->png, s->info);
    int deep = png_get_bit_depth(s->png, s->info) == 16; /* before the transforms update `info` */
    int opaque = 0;
    if (!clanes_png_set_layout(s->png, s->info, channels, bytes_per_sample, &opaque)) {
        clanes_set_message(d->message, d->capacity, "a colour PNG cannot be decoded to %d channel(s)", channels);
        return CLANES_ERR_ARGUMENT;
    }
    d->layout.opaque = opaque || !(channels == 2 || channels == 4);
    d->layout.channels = channels;
    d->layout.bytes_per_sample = bytes_per_sample;
    int interlaced = png_set_interlace_handling(s->png) > 1;
    png_read_update_info(s->png, s->info);
    size_t row_bytes = png_get_rowbytes(s->png, s->info);
    if (row_bytes != (size_t)d->layout.width * (size_t)channels * (size_t)bytes_per_sample) {
        clanes_set_message(d->message, d->capacity, "PNG transformation produced %zu bytes per row", row_bytes);
        return CLANES_ERR_UNSUPPORTED;
    }
    d->layout.whole_image = interlaced;
    /* libpng's row and previous row are as wide as the widest pixel on the way: 64 bits for 16-bit input. */
    size_t widest = deep && row_bytes < (size_t)d->layout.width * 8 ? (size_t)d->layout.width * 8 : row_bytes;
    d->layout.held_bytes = interlaced ? row_bytes * d->layout.height : widest * 2;
    return CLANES_OK;
}

/* An interlaced PNG's whole image, decoded at the first read. */
static int32_t png_rows_read_whole(clanes_row_decoder *d, png_rows_state *s, size_t row_bytes) {
    s->whole = (uint8_t *)malloc(row_bytes * d->layout.height);
    s->pointers = (png_bytep *)malloc(sizeof(png_bytep) * d->layout.height);
    png_bytep *pointers = s->pointers;
    if (s->whole == NULL || pointers == NULL) {
        clanes_set_message(d->message, d->capacity, "out of memory for an interlaced PNG");
        return CLANES_ERR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < d->layout.height; y++) {
        pointers[y] = s->whole + (size_t)y * row_bytes;
    }
    png_read_image(s->png, pointers);
    return CLANES_OK;
}

static int32_t png_rows_read(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count) {
    png_rows_state *s = (png_rows_state *)d->state;
    if (setjmp(png_jmpbuf(s->png))) {
        return png_rows_failure(d);
    }
    size_t row_bytes = clanes_rows_row_bytes(d);
    if (d->layout.whole_image) {
        int32_t status = s->whole == NULL ? png_rows_read_whole(d, s, row_bytes) : CLANES_OK;
        if (status != CLANES_OK) return status;
        for (uint32_t i = 0; i < count; i++) {
            memcpy(rows + (size_t)i * bytes_per_row, s->whole + (size_t)(d->next_row + i) * row_bytes, row_bytes);
        }
        return CLANES_OK;
    }
    for (uint32_t i = 0; i < count; i++) {
        png_read_row(s->png, rows + (size_t)i * bytes_per_row, NULL);
    }
    return CLANES_OK;
}

static void png_rows_close(clanes_row_decoder *d) {
    png_rows_state *s = (png_rows_state *)d->state;
    if (s == NULL) return;
    if (s->png != NULL) png_destroy_read_struct(&s->png, s->info ? &s->info : NULL, NULL);
    free(s->whole);
    free(s->pointers);
    free(s);
    d->state = NULL;
}

const clanes_row_part clanes_png_rows = {png_rows_open, png_rows_read, png_rows_close, 0, 1};
