/*
 * clanes_whole_encode.h — WebP (libwebp) and AVIF (libavif) encoders fed rows top to bottom.
 *
 * Neither library encodes a row at a time: both take the whole picture. So these streams gather the rows into one
 * RGBA8 canvas (width * height * 4 bytes, allocated at begin) and encode it at finish, writing the file to a
 * descriptor or handing it out in memory. Each is begun from ONE options struct; the row, finish, rows-written and
 * destroy calls have the same shape as the PNG and JPEG streams'.
 */
#ifndef CLANES_WHOLE_ENCODE_H
#define CLANES_WHOLE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clanes_whole_stream clanes_whole_stream;

/* What to encode and how. Rows written are RGBA8 (4 bytes a pixel) whatever `has_alpha` says. */
typedef struct clanes_whole_encode_options {
    uint32_t width;
    uint32_t height;
    int32_t has_alpha;  /* 0: the alpha byte of the rows is ignored and the file is opaque */
    int32_t quality;    /* 0...100 (WebP: libwebp's quality, the compression effort when lossless; AVIF: 100 - quantizer %) */
    int32_t lossless;   /* WebP only: 1 for lossless (VP8L); must be 0 for AVIF */
    int32_t effort;     /* WebP: libwebp's method 0...6; AVIF: 0...9, AV1 speed = 9 - effort (as libvips maps it) */
    int32_t threads;    /* AVIF: the AV1 encoder's threads (>= 1); ignored by WebP */
    int fd;             /* >= 0: the file goes there as it is made (never closed); -1: memory */
} clanes_whole_encode_options;

int32_t clanes_webp_stream_begin(const clanes_whole_encode_options *options, clanes_whole_stream **stream,
                                 char *message, size_t message_capacity);
int32_t clanes_avif_stream_begin(const clanes_whole_encode_options *options, clanes_whole_stream **stream,
                                 char *message, size_t message_capacity);

/* Copies the next `count` RGBA8 rows (`bytes_per_row` apart) into the canvas. */
int32_t clanes_whole_stream_write_rows(clanes_whole_stream *stream, const uint8_t *rows, size_t bytes_per_row,
                                       uint32_t count, char *message, size_t message_capacity);

/* Encodes the canvas once every row is in. With fd < 0, *out receives the file (free with clanes_free). */
int32_t clanes_whole_stream_finish(clanes_whole_stream *stream, uint8_t **out, size_t *out_size,
                                   char *message, size_t message_capacity);

uint32_t clanes_whole_stream_rows_written(const clanes_whole_stream *stream);

/* Frees the stream and its canvas (NULL is allowed). Never closes the descriptor. */
void clanes_whole_stream_destroy(clanes_whole_stream *stream);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_WHOLE_ENCODE_H */
