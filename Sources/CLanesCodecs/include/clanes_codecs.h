/*
 * clanes_codecs.h — small C shims over libpng and libjpeg-turbo for LanesImages.
 *
 * libpng and libjpeg report fatal errors with longjmp. A longjmp must never cross Swift
 * frames, so every setjmp/longjmp and every decode/encode loop lives in these C files.
 * Each entry point returns a status code (CLANES_OK or CLANES_ERR_*) and, on failure,
 * writes a NUL-terminated human-readable reason into the caller's `message` buffer.
 *
 * Decoding goes through the one decoder context (clanes_decoder.h); this header holds what the decoder and the
 * encoder share (status codes, formats, a caller's pixel buffer) and the encoder (clanes_encoder_*). Calls that take
 * more than a few values take one struct (as libspng does).
 */
#ifndef CLANES_CODECS_H
#define CLANES_CODECS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. */
#define CLANES_OK 0
#define CLANES_ERR_UNSUPPORTED 1   /* not PNG/JPEG, or a variant the codec cannot decode */
#define CLANES_ERR_TRUNCATED 2     /* the data ends before the image does */
#define CLANES_ERR_CORRUPT 3       /* malformed data (bad CRC, bad Huffman code, bad zlib stream, ...) */
#define CLANES_ERR_TOO_LARGE 4     /* dimensions beyond what the codec can represent */
#define CLANES_ERR_NO_MEMORY 5     /* an allocation failed */
#define CLANES_ERR_ARGUMENT 6      /* caller error: bad buffer, stride, size or scale */
#define CLANES_ERR_ENCODE 7        /* the encoder failed */
#define CLANES_ERR_IO 8            /* writing the encoded bytes to the file descriptor failed */

/* Formats (clanes_info.format, clanes_encode_options.format). */
#define CLANES_FORMAT_UNKNOWN 0
#define CLANES_FORMAT_PNG 1
#define CLANES_FORMAT_JPEG 2
#define CLANES_FORMAT_WEBP 3
#define CLANES_FORMAT_GIF 4
#define CLANES_FORMAT_AVIF 5
#define CLANES_FORMAT_HEIF 6  /* HEIF/HEIC (libheif) */
#define CLANES_FORMAT_JXL 7   /* JPEG XL (libjxl) */

/* A message buffer of this many bytes always holds a whole message. */
#define CLANES_MESSAGE_CAPACITY 256

/* A caller's pixel buffer: `height` rows of `width` pixels, `bytes_per_row` apart, each pixel `channels` (1 grey,
 * 2 grey+alpha, 4 RGBA) samples of `bytes_per_sample` (1, or 2: native-endian uint16) bytes. */
typedef struct clanes_pixels {
    uint8_t *pixels;
    size_t bytes_per_row;     /* >= width * channels * bytes_per_sample */
    uint32_t width;
    uint32_t height;
    int32_t channels;
    int32_t bytes_per_sample;
} clanes_pixels;

/* PNG row filters the encoder may use (OR them; with more than one, libpng picks per row). */
#define CLANES_PNG_FILTER_NONE 0x01
#define CLANES_PNG_FILTER_SUB 0x02
#define CLANES_PNG_FILTER_UP 0x04
#define CLANES_PNG_FILTER_AVG 0x08
#define CLANES_PNG_FILTER_PAETH 0x10
#define CLANES_PNG_FILTER_ALL 0x1F

/*
 * What to encode and how: zero-initialise, fill, pass to clanes_encoder_begin (libspng's shape: one struct, not a row
 * of integers). Fields a format does not use are ignored.
 *
 *     clanes_encode_options options = {0};
 *     options.format = CLANES_FORMAT_PNG; options.width = 640; options.height = 480;
 *     options.channels = 4; options.bytes_per_sample = 1; options.has_alpha = 1;
 *     options.compression_level = 6; options.filters = CLANES_PNG_FILTER_NONE; options.fd = -1;
 */
typedef struct clanes_encode_options {
    int32_t format;            /* CLANES_FORMAT_PNG, _JPEG, _WEBP or _AVIF */
    uint32_t width;            /* pixels, 1...2^31-1 (PNG), 1...65500 (JPEG), 1...16383 (WebP), 1...65535 (AVIF) */
    uint32_t height;
    int32_t channels;          /* the rows' samples per pixel: 1 grey, 2 grey+alpha, 4 RGBA */
    int32_t bytes_per_sample;  /* 1, or 2 (native-endian uint16) */
    int32_t has_alpha;         /* PNG, WebP, AVIF: 0 drops the layout's alpha (an opaque file is written) */
    int32_t compression_level; /* PNG: zlib's 0...9 */
    int32_t filters;           /* PNG: a non-empty set of CLANES_PNG_FILTER_* (more than one: libpng picks per row) */
    int32_t quality;           /* JPEG: 1...100; WebP: 0...100 (lossless: how hard it compresses); AVIF: 0...100,
                                  the AV1 quantizer being (100 - quality) * 63 / 100 as libavif 1.x maps it */
    int32_t lossless;          /* WebP: 1 writes VP8L (exact pixels) */
    int32_t effort;            /* WebP: libwebp's method 0...6; AVIF: 0...9, AV1 speed 9 - effort (as libvips) */
    int32_t threads;           /* AVIF: the AV1 encoder's threads, 1...64 */
    int32_t optimize_coding;   /* JPEG: 1 computes optimal Huffman tables (libjpeg then keeps every coefficient) */
    uint32_t background;       /* JPEG: 0xRRGGBB that alpha is flattened on (grey layouts use its luma) */
    int fd;                    /* where the bytes go as they are made (never closed); -1: into memory */
    const char *const *text;   /* PNG: text_count pairs, text[2i] a key (1...79 printable ASCII bytes) and text[2i+1]
                                  its value (ASCII), written as tEXt chunks before the image data; NULL: none.
                                  Read only while clanes_encoder_begin runs. */
    int32_t text_count;
} clanes_encode_options;

/*
 * The one encoder, fed rows top to bottom (not interlaced): a PNG (grey, grey+alpha, RGB or RGBA at 8 or 16 bits), a
 * baseline JPEG (grey layouts as one-component greyscale, RGBA as YCbCr; 16-bit samples rounded to 8 bits), a WebP or
 * an AVIF (RGBA8 rows only; 8-bit 4:2:0 AVIF). libwebp and libavif encode a whole picture, so those two gather the rows
 * into one RGBA8 canvas (4 bytes a pixel) and encode it when the file is finished. Bytes go
 * to `fd` as the library makes them (write(2) retried on EINTR and short writes; a JPEG 64 KB at a time), or into a
 * growable buffer handed out by clanes_encoder_finish. What it holds: a few rows (libpng's, libjpeg's row groups), plus,
 * for a JPEG with optimize_coding, every quantised coefficient (about 3 bytes a pixel for colour, 2 for grey).
 * Every call returns a status; after any error the encoder only accepts clanes_encoder_destroy.
 */
typedef struct clanes_encoder clanes_encoder;

/* Starts an encoder and writes the file's header; on success *encoder receives it (destroy it in all cases). */
int32_t clanes_encoder_begin(const clanes_encode_options *options, clanes_encoder **encoder,
                             char *message, size_t message_capacity);

/* Encodes the next `count` rows (`bytes_per_row` >= width * channels * bytes_per_sample apart). More rows than the
 * height is an error. */
int32_t clanes_encoder_write_rows(clanes_encoder *encoder, const uint8_t *pixels, size_t bytes_per_row,
                                  uint32_t count, char *message, size_t message_capacity);

/* Rows written so far. */
uint32_t clanes_encoder_rows_written(const clanes_encoder *encoder);

/*
 * Ends the file once every row is in. Into memory, *out receives the file of *out_size bytes (the caller frees it with
 * clanes_free); with a descriptor *out is NULL and *out_size the number of bytes written. out/out_size may be NULL.
 */
int32_t clanes_encoder_finish(clanes_encoder *encoder, uint8_t **out, size_t *out_size,
                              char *message, size_t message_capacity);

/* Frees the encoder (NULL is allowed). Never closes the descriptor. */
void clanes_encoder_destroy(clanes_encoder *encoder);

/* Frees a buffer returned by an encoder. NULL is allowed. */
void clanes_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_CODECS_H */
