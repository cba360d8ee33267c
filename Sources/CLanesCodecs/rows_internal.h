/*
 * rows_internal.h — row decoding (behind clanes_decoder_start_rows), a few rows at a time: rows.c holds the input,
 * png_rows.c (libpng's row reader) and jpeg_rows.c (libjpeg scanlines) are the formats' parts.
 *
 * A row decoder reads its input from memory or from a file descriptor (pread from offset 0, so
 * the descriptor's own offset is untouched and nothing beyond a small read buffer is held) and
 * hands out rows top to bottom. What it holds besides libpng's/libjpeg's own state:
 *   - a non-interlaced PNG: one row (libpng's previous-row buffer for unfiltering);
 *   - an interlaced (Adam7) PNG: the whole image, decoded at the first read — a row is only final
 *     after the last of the seven passes, so interlacing truly needs a whole bitmap;
 *   - a JPEG: libjpeg's strip of one iMCU row (8 or 16 rows; a progressive JPEG also keeps its
 *     whole coefficient image, about 2 bytes per sample, as libjpeg must), plus one CMYK row.
 * Rows come out in the layout asked for (RGBA8 unless the request says otherwise), reported at open.
 */
#ifndef CLANES_ROWS_H
#define CLANES_ROWS_H

#include "clanes_decoder.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clanes_row_decoder clanes_row_decoder;
struct clanes_row_part;

/*
 * What to decode and how: zero-initialise, fill, pass to clanes_row_decoder_open (zero fields take the defaults).
 *
 *     clanes_row_request request = {0};
 *     request.data = bytes; request.size = size; request.fd = -1; request.part = &clanes_png_rows;
 *     request.channels = 4; request.bytes_per_sample = 2;   // RGBA16 rows
 */
typedef struct clanes_row_request {
    const uint8_t *data;      /* the encoded input in memory, or NULL to read `fd` */
    size_t size;              /* bytes at `data`, or the file's size */
    int fd;                   /* a regular file read with pread from offset 0 (-1 with `data`); never closed */
    const struct clanes_row_part *part; /* the format's row part (clanes_png_rows, clanes_jpeg_rows) */
    int32_t scale_denom;      /* a JPEG's DCT scaling 1/1, 1/2, 1/4, 1/8 (0: 1); a PNG's is 1 */
    int32_t channels;         /* the rows' samples per pixel: 4 (RGBA; 0 means 4), or for a grey PNG 1 or 2 */
    int32_t bytes_per_sample; /* 1 (0 means 1), or for a PNG 2 (native-endian uint16, expanded from fewer bits) */
} clanes_row_request;

/* Opens a decoder for `request`; on success *decoder receives it (destroy it in all cases) and *layout what it hands out. */
int32_t clanes_row_decoder_open(const clanes_row_request *request, clanes_row_decoder **decoder,
                                clanes_row_layout *layout, char *message, size_t message_capacity);

/* Decodes the next `count` rows into `rows` (`bytes_per_row` apart). Past the last row is an error. */
int32_t clanes_row_decoder_read(clanes_row_decoder *decoder, uint8_t *rows, size_t bytes_per_row, uint32_t count,
                                char *message, size_t message_capacity);

/* Rows handed out so far. */
uint32_t clanes_row_decoder_rows_read(const clanes_row_decoder *decoder);

/* Frees the decoder (NULL is allowed). Never closes the descriptor. */
void clanes_row_decoder_destroy(clanes_row_decoder *decoder);

/* ---- what the core (rows.c) and a format's row part (png_rows.c, jpeg_rows.c) share ---- */

struct clanes_row_decoder {
    const struct clanes_row_part *part;
    const uint8_t *data; /* memory input, or NULL */
    int fd;              /* file input, or -1 */
    size_t size;
    size_t offset;
    int truncated;
    int io_error;
    char *message;       /* the current call's message buffer */
    size_t capacity;
    clanes_row_layout layout;
    uint32_t next_row;
    void *state;         /* the part's own (libpng's or libjpeg's structs, buffers), on the heap */
};

/* A format's rows: `open` reads the header and fills d->layout (the request's layout and scale already checked),
 * `read` writes the next `count` rows, `close` frees d->state (also after a failed open). */
typedef struct clanes_row_part {
    int32_t (*open)(clanes_row_decoder *d, const clanes_row_request *request);
    int32_t (*read)(clanes_row_decoder *d, uint8_t *rows, size_t bytes_per_row, uint32_t count);
    void (*close)(clanes_row_decoder *d);
    int scales;          /* 1: a DCT scale other than 1 is available */
    int any_layout;      /* 1: grey and 16-bit rows are available (else RGBA8 only) */
} clanes_row_part;

extern const clanes_row_part clanes_png_rows;
extern const clanes_row_part clanes_jpeg_rows;

/* Reads up to `length` bytes of the input at the decoder's offset; how many (0 at the end or on error: io_error). */
size_t clanes_rows_read_input(clanes_row_decoder *d, uint8_t *out, size_t length);

/* Bytes of one row handed out. */
size_t clanes_rows_row_bytes(const clanes_row_decoder *d);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_ROWS_H */
