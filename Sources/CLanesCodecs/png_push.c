/*
 * The PNG part's decoding of pushed bytes (incremental_internal.h): libpng's progressive reader (png_process_data),
 * fed in small pieces so the rows it produces ahead of the reader stay few. An interlaced (Adam7) PNG is decoded into
 * a whole image, and after each of passes 1-6 the pixels so far render a preview, each known pixel filling its block.
 * Rows are RGBA8. All libpng state lives in the heap, so it stays valid after a longjmp.
 */
#include "codecs_internal.h"
#include "incremental_internal.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

/* Bytes handed to png_process_data at a time: the rows one piece inflates to stay few (zlib: at most ~1 MB). */
#define PNG_PUSH_PIECE 1024

typedef struct png_push_state {
    png_structp png;
    png_infop info;
    int32_t failure;      /* a status set before a longjmp (CLANES_OK: corrupt data) */
    int interlaced;
    uint8_t *whole;       /* an interlaced PNG's image */
    uint8_t *pending;     /* rows inflated ahead of the reader: pending_first ..< pending_count */
    uint32_t pending_first;
    uint32_t pending_count;
    uint32_t pending_capacity;
} png_push_state;

static void png_push_failed(png_structp png, png_const_charp text) {
    clanes_incremental *d = (clanes_incremental *)png_get_error_ptr(png);
    png_push_state *s = (png_push_state *)d->codec;
    if (s->failure != CLANES_OK) png_longjmp(png, 1); /* its message is set */
    clanes_png_raise(png, d->message, d->capacity, "PNG", text);
}

/* Ends the decode from inside a libpng callback with `status` and a message. */
static void png_push_stop(png_structp png, png_push_state *s, int32_t status) {
    s->failure = status;
    png_error(png, "stopped");
}

static void png_push_header(png_structp png, png_infop info) {
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    png_push_state *s = (png_push_state *)d->codec;
    uint32_t width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if ((uint64_t)width * height > d->options.max_pixels) {
        clanes_set_message(d->message, d->capacity, "PNG of %ux%u is over the limit of %llu pixels", width, height,
                           (unsigned long long)d->options.max_pixels);
        png_push_stop(png, s, CLANES_ERR_TOO_LARGE);
    }
    int opaque = 0;
    (void)clanes_png_set_layout(png, info, 4, 1, &opaque); /* four channels: every PNG converts */
    d->state.opaque = opaque;
    s->interlaced = png_set_interlace_handling(png) > 1;
    png_read_update_info(png, info);
    d->row_bytes = png_get_rowbytes(png, info);
    if (d->row_bytes != (size_t)width * 4) {
        clanes_set_message(d->message, d->capacity, "PNG transformation produced %zu bytes per row", d->row_bytes);
        png_push_stop(png, s, CLANES_ERR_UNSUPPORTED);
    }
    if (s->interlaced) {
        s->whole = (uint8_t *)calloc(height, d->row_bytes);
        if (s->whole == NULL) {
            clanes_set_message(d->message, d->capacity, "out of memory for an interlaced PNG");
            png_push_stop(png, s, CLANES_ERR_NO_MEMORY);
        }
    }
    d->state.width = width;
    d->state.height = height;
    d->state.progressive = s->interlaced;
    d->state.header_ready = 1;
}

/* Makes room for one more pending row (moving the rows down, or doubling); 0 when out of memory. */
static int png_push_room(clanes_incremental *d, png_push_state *s) {
    if (s->pending_first + s->pending_count < s->pending_capacity) return 1;
    if (s->pending_first > 0) {
        memmove(s->pending, s->pending + (size_t)s->pending_first * d->row_bytes,
                (size_t)s->pending_count * d->row_bytes);
        s->pending_first = 0;
        return 1;
    }
    uint32_t capacity = s->pending_capacity < 8 ? 8 : s->pending_capacity * 2;
    uint8_t *grown = (uint8_t *)realloc(s->pending, (size_t)capacity * d->row_bytes);
    if (grown == NULL) return 0;
    s->pending = grown;
    s->pending_capacity = capacity;
    return 1;
}

static void png_push_row(png_structp png, png_bytep row, png_uint_32 number, int pass) {
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    png_push_state *s = (png_push_state *)d->codec;
    if (s->interlaced && (uint32_t)pass > d->state.previews_ready && pass < 7) {
        d->state.previews_ready = (uint32_t)pass; /* passes 0 ..< pass are complete */
    }
    if (row == NULL || number >= d->state.height) {
        return;
    }
    if (s->interlaced) {
        png_progressive_combine_row(png, s->whole + (size_t)number * d->row_bytes, row);
        return;
    }
    if (!png_push_room(d, s)) {
        clanes_set_message(d->message, d->capacity, "out of memory for PNG rows");
        png_push_stop(png, s, CLANES_ERR_NO_MEMORY);
    }
    memcpy(s->pending + (size_t)(s->pending_first + s->pending_count) * d->row_bytes, row, d->row_bytes);
    s->pending_count++;
}

static void png_push_ended(png_structp png, png_infop info) {
    (void)info;
    clanes_incremental *d = (clanes_incremental *)png_get_progressive_ptr(png);
    d->state.input_complete = 1;
    d->state.previews_ready = 0;
}

static int32_t png_push_start(clanes_incremental *d) {
    png_push_state *s = (png_push_state *)calloc(1, sizeof(png_push_state));
    d->codec = s;
    int32_t status = s == NULL ? CLANES_ERR_NO_MEMORY
        : clanes_png_create_reader(d, png_push_failed, &s->png, &s->info, d->message, d->capacity);
    if (status != CLANES_OK) {
        return status;
    }
    png_set_progressive_read_fn(s->png, d, png_push_header, png_push_row, png_push_ended);
    return CLANES_OK;
}

/* Hands input to libpng piece by piece until `rows` rows wait (all input for the header and interlaced passes). */
static int32_t png_push_pump(clanes_incremental *d, png_push_state *s, uint32_t rows) {
    if (setjmp(png_jmpbuf(s->png))) {
        return s->failure != CLANES_OK ? s->failure : CLANES_ERR_CORRUPT;
    }
    while (d->position < d->size && !d->state.input_complete
           && (!d->state.header_ready || s->interlaced || s->pending_count < rows)) {
        size_t piece = d->size - d->position;
        if (piece > PNG_PUSH_PIECE) piece = PNG_PUSH_PIECE;
        png_process_data(s->png, s->info, d->input + d->position, piece);
        d->position += piece;
    }
    if (d->state.input_complete) {
        d->position = d->size; /* what follows IEND is not the image's */
    }
    return CLANES_OK;
}

/* The input has ended and every byte was consumed, yet the image has not: truncated. */
static int32_t png_push_ended_early(clanes_incremental *d, int short_of_rows) {
    png_push_state *s = (png_push_state *)d->codec;
    if (!d->end_of_input || d->position < d->size
        || !(short_of_rows || !d->state.header_ready || (s->interlaced && !d->state.input_complete))) {
        return CLANES_OK;
    }
    clanes_set_message(d->message, d->capacity, "PNG: unexpected end of data");
    return CLANES_ERR_TRUNCATED;
}

static int32_t png_push_advance(clanes_incremental *d) {
    int32_t status = png_push_pump(d, (png_push_state *)d->codec, 0);
    return status != CLANES_OK ? status : png_push_ended_early(d, 0);
}

static int32_t png_push_read(clanes_incremental *d, clanes_incremental_call *call) {
    png_push_state *s = (png_push_state *)d->codec;
    int32_t status = png_push_pump(d, s, call->count);
    if (status != CLANES_OK) return status;
    uint32_t got = 0;
    if (s->interlaced) {
        if (!d->state.input_complete) return png_push_ended_early(d, 1);
        for (; got < call->count; got++) {
            memcpy(call->rows + (size_t)got * call->bytes_per_row,
                   s->whole + (size_t)(d->state.rows_read + got) * d->row_bytes, d->row_bytes);
        }
    } else {
        for (; got < call->count && s->pending_count > 0; got++) {
            memcpy(call->rows + (size_t)got * call->bytes_per_row,
                   s->pending + (size_t)s->pending_first * d->row_bytes, d->row_bytes);
            s->pending_first++;
            s->pending_count--;
        }
        if (s->pending_count == 0) s->pending_first = 0;
    }
    call->delivered = got;
    return png_push_ended_early(d, got < call->count);
}

/* The pixels known after `passes` Adam7 passes, each filling the block it stands for. */
static int32_t png_push_preview(clanes_incremental *d, clanes_incremental_call *call) {
    static const uint32_t masks[7][2] = { {7, 7}, {7, 7}, {3, 7}, {3, 3}, {1, 3}, {1, 1}, {0, 1} };
    png_push_state *s = (png_push_state *)d->codec;
    uint32_t pass = d->state.previews_ready > 6 ? 6 : d->state.previews_ready;
    uint32_t mx = masks[pass][0], my = masks[pass][1];
    for (uint32_t y = 0; y < d->state.height; y++) {
        const uint32_t *source = (const uint32_t *)(const void *)(s->whole + (size_t)(y & ~my) * d->row_bytes);
        uint8_t *out = call->rows + (size_t)y * call->bytes_per_row;
        for (uint32_t x = 0; x < d->state.width; x++) {
            memcpy(out + (size_t)x * 4, &source[x & ~mx], 4);
        }
    }
    return CLANES_OK;
}

static size_t png_push_held(const clanes_incremental *d) {
    const png_push_state *s = (const png_push_state *)d->codec;
    if (s == NULL) return 0;
    return (size_t)s->pending_capacity * d->row_bytes + (s->whole != NULL ? d->row_bytes * d->state.height : 0);
}

static void png_push_close(clanes_incremental *d) {
    png_push_state *s = (png_push_state *)d->codec;
    if (s == NULL) return;
    if (s->png != NULL) png_destroy_read_struct(&s->png, s->info ? &s->info : NULL, NULL);
    free(s->whole);
    free(s->pending);
    free(s);
    d->codec = NULL;
}

const clanes_push_part clanes_png_push = {png_push_start, png_push_advance, png_push_read, png_push_preview,
                                          png_push_held, png_push_close, 0};
