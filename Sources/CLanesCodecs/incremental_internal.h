/*
 * incremental_internal.h — decoding pushed bytes (behind clanes_decoder_push): bytes as they arrive (a download),
 * never blocking for more. incremental.c holds the input; png_push.c and jpeg_push.c are the formats' parts.
 *
 * The caller appends bytes (clanes_incremental_feed) and takes rows top to bottom (clanes_incremental_read), which
 * hands out as many of the asked rows as the bytes so far allow (0: feed more). A JPEG is read through a suspending
 * source manager; a PNG through libpng's progressive reader (png_process_data), fed in small pieces so the rows it
 * produces ahead of the reader stay few. Bytes are held only until the decoder has consumed them.
 *
 * Previews: a progressive JPEG is decoded in buffered-image mode, so after each completed scan the coefficients so
 * far can be rendered (clanes_incremental_preview); an interlaced (Adam7) PNG is decoded into a whole image, and
 * after each of passes 1-6 the pixels so far are rendered with each known pixel filling its block. A baseline JPEG
 * and a non-interlaced PNG have no previews (their rows are final as they arrive).
 *
 * What it holds: the unconsumed input; libjpeg's strip (and, progressive, its coefficient image); libpng's rows and
 * the rows decoded ahead of the reader; an interlaced PNG's whole image. Rows are RGBA8 (the row decoder's
 * transforms: 16-bit is scaled to 8, grey and palette are expanded, opaque images get alpha 255).
 *
 * Limits are checked from the header, before any image-sized allocation: more than `max_pixels` pixels fails with
 * CLANES_ERR_TOO_LARGE. Input that ends before the image does fails with CLANES_ERR_TRUNCATED at the call that
 * says the input ended (`end_of_input`).
 */
#ifndef CLANES_INCREMENTAL_H
#define CLANES_INCREMENTAL_H

#include "clanes_decoder.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clanes_incremental clanes_incremental;
struct clanes_push_part;

/* What to decode. */
typedef struct clanes_incremental_options {
    const struct clanes_push_part *part; /* the format's part (clanes_png_push, clanes_jpeg_push) */
    uint64_t max_pixels;  /* a header claiming more pixels fails before any allocation */
    int32_t previews;     /* 1: keep what previews need (buffered-image JPEG, the interlaced PNG's passes) */
    int32_t scale_denom;  /* a JPEG decoded at 1/2, 1/4 or 1/8 in the DCT domain (0 or 1: full size; PNG: 1) */
} clanes_incremental_options;

/* Where the decoder stands; every call fills it in. */
typedef clanes_progress clanes_incremental_state;

/* One call: the bytes to append, the rows to take, the message buffer, and the state after the call. */
typedef struct clanes_incremental_call {
    const uint8_t *data;       /* feed: bytes to append (may be NULL with size 0) */
    size_t size;
    int32_t end_of_input;      /* feed: no more bytes will come */
    uint8_t *rows;             /* read/preview: where the rows go, `bytes_per_row` apart (width * 4 at least) */
    size_t bytes_per_row;
    uint32_t count;            /* read: rows wanted */
    uint32_t delivered;        /* read: rows written (0 when more input is needed first) */
    char *message;
    size_t message_capacity;
    clanes_incremental_state state;
} clanes_incremental_call;

/* Creates a decoder (destroy it in all cases once *decoder is set). */
int32_t clanes_incremental_create(const clanes_incremental_options *options, clanes_incremental **decoder,
                                  char *message, size_t message_capacity);

/* Appends call->data and decodes as far as it allows without output (header, a progressive file's scans/passes). */
int32_t clanes_incremental_feed(clanes_incremental *decoder, clanes_incremental_call *call);

/* Writes up to call->count of the next rows to call->rows; call->delivered says how many. */
int32_t clanes_incremental_read(clanes_incremental *decoder, clanes_incremental_call *call);

/* Renders the latest preview (state.previews_ready > 0, before the first row is read) into call->rows. */
int32_t clanes_incremental_preview(clanes_incremental *decoder, clanes_incremental_call *call);

/* Frees the decoder (NULL is allowed). */
void clanes_incremental_destroy(clanes_incremental *decoder);

/* ---- what the core (incremental.c) and a format's part (png_push.c, jpeg_push.c) share ---- */

struct clanes_incremental {
    const struct clanes_push_part *part;
    clanes_incremental_options options;
    clanes_incremental_state state;
    char *message;        /* the current call's message buffer */
    size_t capacity;
    int end_of_input;
    /* the unconsumed input: input[position ..< size] */
    uint8_t *input;
    size_t position;
    size_t size;
    size_t input_capacity;
    size_t row_bytes;     /* an RGBA8 row, once the header is known */
    void *codec;          /* the part's own state (libpng's or libjpeg's structs, its buffers), on the heap */
};

/* A format's decoding of pushed bytes. `advance` decodes as far as the input allows without output (and says a
 * truncation once the input has ended), `read` hands out up to call->count rows (call->delivered), `preview` renders
 * the latest one, `held` counts the part's buffers, `close` frees d->codec (also after a failed `start`). */
typedef struct clanes_push_part {
    int32_t (*start)(clanes_incremental *d);
    int32_t (*advance)(clanes_incremental *d);
    int32_t (*read)(clanes_incremental *d, clanes_incremental_call *call);
    int32_t (*preview)(clanes_incremental *d, clanes_incremental_call *call);
    size_t (*held)(const clanes_incremental *d);
    void (*close)(clanes_incremental *d);
    int scales;           /* 1: a DCT scale other than 1 is available */
} clanes_push_part;

extern const clanes_push_part clanes_png_push;
extern const clanes_push_part clanes_jpeg_push;

#ifdef __cplusplus
}
#endif

#endif /* CLANES_INCREMENTAL_H */
