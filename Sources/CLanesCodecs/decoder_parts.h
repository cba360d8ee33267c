/*
 * The decoder's per-format parts (decoder.c holds the table): each format's signature, header reader and the calls it
 * answers. Not part of the public header.
 */
#ifndef CLANES_DECODER_PARTS_H
#define CLANES_DECODER_PARTS_H

#include "clanes_decoder.h"
#include "codecs_internal.h"
#include "frames_internal.h"
#include "incremental_internal.h"
#include "rows_internal.h"

/* Reads `info` from the header alone (the context has zeroed it and set orientation 1); CLANES_ERR_TRUNCATED when
 * `data` ends before the header does. */
typedef int32_t (*clanes_probe_fn)(const uint8_t *data, size_t size, clanes_info *info, char *message,
                                   size_t capacity);

/* Decodes a whole image into `image` (PNG, JPEG; `scale_denom` is a JPEG's DCT scale). */
typedef int32_t (*clanes_whole_fn)(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                                   char *message, size_t capacity);

/* Decodes the embedded thumbnail `header` reports into `image` (RGBA8, the thumbnail's size as the header says it):
 * a JPEG's Exif thumbnail (stored orientation), a HEIF thumbnail item or a JPEG XL preview frame (both upright). A
 * thumbnail that decodes to another size than its header said is corrupt. */
typedef int32_t (*clanes_thumbnail_fn)(const uint8_t *data, size_t size, const clanes_info *header,
                                       const clanes_pixels *image, char *message, size_t capacity);

typedef struct clanes_decoder_part {
    int32_t format;
    const char *name;
    int (*matches)(const uint8_t *data, size_t size);   /* the signature (each checks it has the bytes) */
    clanes_probe_fn probe;
    clanes_whole_fn decode_whole;     /* PNG, JPEG: whole (png.c, jpeg.c) */
    const clanes_row_part *rows;      /* PNG, JPEG: rows from memory or a file (png_rows.c, jpeg_rows.c) */
    const clanes_push_part *push;     /* PNG, JPEG: pushed bytes, with previews (png_push.c, jpeg_push.c) */
    const clanes_frames_codec *frames; /* WebP, GIF, AVIF, HEIF, JPEG XL */
    clanes_thumbnail_fn decode_thumbnail; /* JPEG (Exif), HEIF (thumbnail item), JPEG XL (preview frame) */
} clanes_decoder_part;

/* The part whose signature `data` starts with, or NULL. */
const clanes_decoder_part *clanes_decoder_part_for(const uint8_t *data, size_t size);

/* ---- the header readers (each in its format's file) ---- */
int32_t clanes_png_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_jpeg_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_webp_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_gif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_avif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_heif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);
int32_t clanes_jxl_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity);

/*
 * Decodes any PNG (palette, grey, grey+alpha, RGB, RGBA; 1-16 bits; Adam7; tRNS) into `image`, whose size must equal
 * the header's. Colour types convert only towards more channels (grey to RGBA, not back); a layout without alpha
 * drops the file's alpha; samples are scaled to or expanded from 16 bits as the layout says. (`scale_denom`: 1.)
 */
int32_t clanes_png_decode(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                          char *message, size_t message_capacity);

/*
 * Reads a PNG's tEXt and iTXt chunks that come before the image data (where libpng's png_set_text, GdkPixbuf and the
 * thumbnailers put them) without decoding any pixels (see clanes_decoder_read_text). Each chunk is capped as in a
 * decode (1 MiB) and every other ancillary chunk is skipped, so a hostile file costs no more than its header.
 */
int32_t clanes_png_read_text(const uint8_t *data, size_t size, char *out, size_t capacity, size_t *length,
                             int32_t *count, char *message, size_t message_capacity);

/*
 * Decodes a baseline/progressive JPEG (grey, YCbCr, RGB, CMYK, YCCK) into `image`: 4 channels (RGBA8, alpha 255) or,
 * for a greyscale JPEG, 1; 8-bit samples. Scaled by 1/scale_denom in the DCT domain (1, 2, 4 or 8). A premature end
 * of data is an error (CLANES_ERR_TRUNCATED), as are bad Huffman codes and markers inside entropy-coded data.
 */
int32_t clanes_jpeg_decode(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                           char *message, size_t message_capacity);

/* The embedded thumbnails' decoders (jpeg.c, heif.c, jxl.c). */
int32_t clanes_jpeg_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                     const clanes_pixels *image, char *message, size_t capacity);
int32_t clanes_heif_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                     const clanes_pixels *image, char *message, size_t capacity);
int32_t clanes_jxl_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                    const clanes_pixels *image, char *message, size_t capacity);

#endif
