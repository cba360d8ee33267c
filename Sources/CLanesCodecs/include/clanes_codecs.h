/*
 * clanes_codecs.h — small C shims over libpng and libjpeg-turbo for LanesImages.
 *
 * libpng and libjpeg report fatal errors with longjmp. A longjmp must never cross Swift
 * frames, so every setjmp/longjmp and every decode/encode loop lives in these C files.
 * Each entry point returns a status code (CLANES_OK or CLANES_ERR_*) and, on failure,
 * writes a NUL-terminated human-readable reason into the caller's `message` buffer.
 *
 * All decoding works on memory buffers. Decoders write RGBA8 (4 bytes per pixel, R G B A)
 * into a caller-provided buffer of `height` rows of `bytes_per_row` bytes each.
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

/* Formats reported by clanes_probe. */
#define CLANES_FORMAT_UNKNOWN 0
#define CLANES_FORMAT_PNG 1
#define CLANES_FORMAT_JPEG 2
#define CLANES_FORMAT_WEBP 3  /* decoded by clanes_frames (clanes_frames.h) */
#define CLANES_FORMAT_GIF 4
#define CLANES_FORMAT_AVIF 5

/* A message buffer of this many bytes always holds a whole message. */
#define CLANES_MESSAGE_CAPACITY 256

/* What the header says, read without decoding any pixels. */
typedef struct clanes_info {
    int32_t format;       /* CLANES_FORMAT_* */
    uint32_t width;       /* stored width in pixels (before Exif orientation) */
    uint32_t height;      /* stored height in pixels (before Exif orientation) */
    int32_t orientation;  /* Exif orientation 1...8 (JPEG APP1); 1 when absent or invalid */
    int32_t components;   /* colour components stored in the file (PNG: channels incl. alpha) */
    int32_t bit_depth;    /* bits per sample */
    int32_t progressive;  /* 1 for an interlaced PNG or a progressive JPEG */
    int32_t layout_channels; /* the stored layout's channels: 1 grey, 2 grey+alpha (also grey with tRNS), 4 colour */
    int32_t layout_bytes;    /* the stored layout's bytes per sample: 2 for a 16-bit PNG, 1 otherwise */
    int32_t animated;        /* 1 when the header says the image is animated (WebP's flag, an AVIF sequence) */
} clanes_info;

/*
 * Reads the PNG IHDR or the JPEG markers up to the first scan (SOFn, APP1 Exif orientation), a WebP's VP8/VP8L/VP8X
 * header, a GIF's logical screen, an AVIF's primary item (libavif parses the container: it allocates a little, never
 * for pixels). Never decodes pixel data.
 */
int32_t clanes_probe(const uint8_t *data, size_t size, clanes_info *info,
                     char *message, size_t message_capacity);

/*
 * Decodes any PNG (palette, grey, grey+alpha, RGB, RGBA; 1-16 bits; Adam7; tRNS) to RGBA8.
 * `width`/`height` must equal the header's (from clanes_probe); `bytes_per_row` >= width * 4.
 */
int32_t clanes_png_decode(const uint8_t *data, size_t size,
                          uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                          char *message, size_t message_capacity);

/*
 * Decodes any PNG to a layout of `channels` (1 grey, 2 grey+alpha, 4 RGBA) samples of `bytes_per_sample` (1, or 2:
 * native-endian uint16). Colour types convert only towards more channels (grey to RGBA, not back); a layout without
 * alpha drops the file's alpha. `bytes_per_row` >= width * channels * bytes_per_sample.
 */
int32_t clanes_png_decode_layout(const uint8_t *data, size_t size,
                                 uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                 int32_t channels, int32_t bytes_per_sample,
                                 char *message, size_t message_capacity);

/*
 * The largest single allocation libpng made during the calling thread's last clanes_png_decode (0 before any):
 * hostile-input tests check that a chunk's declared length never becomes an allocation.
 */
size_t clanes_png_last_largest_allocation(void);

/*
 * Decodes a baseline/progressive JPEG (grey, YCbCr, RGB, CMYK, YCCK) to RGBA8 (alpha 255),
 * scaled by 1/scale_denom in the DCT domain (scale_denom is 1, 2, 4 or 8).
 * `width`/`height` must equal clanes_jpeg_scaled_dimension() of the header's size.
 * A premature end of data is an error (CLANES_ERR_TRUNCATED), as are bad Huffman codes
 * and markers inside entropy-coded data (CLANES_ERR_CORRUPT).
 */
int32_t clanes_jpeg_decode(const uint8_t *data, size_t size, int32_t scale_denom,
                           uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                           char *message, size_t message_capacity);

/* clanes_jpeg_decode to `channels` 1 (grey; only for a greyscale JPEG) or 4 (RGBA8). */
int32_t clanes_jpeg_decode_layout(const uint8_t *data, size_t size, int32_t scale_denom,
                                  uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                  int32_t channels, char *message, size_t message_capacity);

/* The size of one dimension after DCT scaling by 1/scale_denom (rounds up, as libjpeg does). */
uint32_t clanes_jpeg_scaled_dimension(uint32_t dimension, int32_t scale_denom);

/* PNG row filters the encoder may use (OR them; with more than one, libpng picks per row). */
#define CLANES_PNG_FILTER_NONE 0x01
#define CLANES_PNG_FILTER_SUB 0x02
#define CLANES_PNG_FILTER_UP 0x04
#define CLANES_PNG_FILTER_AVG 0x08
#define CLANES_PNG_FILTER_PAETH 0x10
#define CLANES_PNG_FILTER_ALL 0x1F

/*
 * Encodes to PNG pixels of `channels` (1, 2, 4) samples of `bytes_per_sample` (1 or 2, native-endian): written
 * as grey, grey+alpha, RGB or RGBA at 8 or 16 bits; the alpha channel is dropped when every pixel is opaque.
 * compression_level is zlib's 0...9; filters is a non-empty set of CLANES_PNG_FILTER_* flags. On success *out
 * receives a buffer of *out_size bytes that the caller frees with clanes_free.
 */
int32_t clanes_png_encode_layout(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                 int32_t channels, int32_t bytes_per_sample,
                                 int32_t compression_level, int32_t filters, uint8_t **out, size_t *out_size,
                                 char *message, size_t message_capacity);

/*
 * Encodes pixels of `channels` (1, 2, 4) samples of `bytes_per_sample` (1 or 2) to a baseline JPEG: grey layouts as a
 * one-component greyscale JPEG, RGBA as YCbCr. Alpha is flattened on `background` (0xRRGGBB; grey layouts use its
 * luma), one row at a time; 16-bit samples are rounded to 8 bits. `optimize_coding` 1 computes optimal Huffman tables
 * (smaller files; libjpeg holds every quantised coefficient until the end), 0 uses the standard ones. The same bytes
 * as a clanes_jpeg_stream fed the same rows.
 */
int32_t clanes_jpeg_encode_layout(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                  int32_t channels, int32_t bytes_per_sample, uint32_t background,
                                  int32_t quality, int32_t optimize_coding, uint8_t **out, size_t *out_size,
                                  char *message, size_t message_capacity);

/*
 * A PNG encoder fed a row at a time, top to bottom (not interlaced). Bytes go to the file
 * descriptor `fd` as libpng produces them (write(2), retried on EINTR and short writes), or,
 * when fd < 0, to a growable buffer handed out by clanes_png_stream_finish.
 * `has_alpha` 0 writes RGB (the alpha byte of every RGBA8 row is dropped), 1 writes RGBA.
 * Every call returns a status; after any error the stream only accepts clanes_png_stream_destroy.
 */
typedef struct clanes_png_stream clanes_png_stream;

/*
 * Starts a stream and writes the PNG header; on success *stream receives it (destroy it in all cases). Rows are of
 * `channels` (1, 2, 4) samples of `bytes_per_sample` (1 or 2, native-endian);
 * `has_alpha` 0 drops the alpha channel of a 2- or 4-channel layout. Rows then hold width * channels *
 * bytes_per_sample bytes.
 */
int32_t clanes_png_stream_begin_layout(uint32_t width, uint32_t height, int32_t channels, int32_t bytes_per_sample,
                                       int32_t has_alpha, int32_t compression_level, int32_t filters, int fd,
                                       clanes_png_stream **stream, char *message, size_t message_capacity);

/* Encodes the next `count` RGBA8 rows (`bytes_per_row` >= width * 4 apart). More rows than the height is an error. */
int32_t clanes_png_stream_write_rows(clanes_png_stream *stream, const uint8_t *pixels, size_t bytes_per_row,
                                     uint32_t count, char *message, size_t message_capacity);

/* Rows written so far. */
uint32_t clanes_png_stream_rows_written(const clanes_png_stream *stream);

/*
 * Writes the end of the PNG once every row is in. With fd < 0, *out receives the encoded
 * buffer of *out_size bytes (the caller frees it with clanes_free); with a descriptor *out is
 * NULL and *out_size the number of bytes written. out/out_size may be NULL.
 */
int32_t clanes_png_stream_finish(clanes_png_stream *stream, uint8_t **out, size_t *out_size,
                                 char *message, size_t message_capacity);

/* Frees the stream (NULL is allowed). Never closes the descriptor. */
void clanes_png_stream_destroy(clanes_png_stream *stream);

/*
 * A JPEG encoder fed a row at a time, top to bottom, with clanes_jpeg_encode_layout's settings: rows of `channels` (1,
 * 2, 4) samples of `bytes_per_sample` (1 or 2, native-endian), alpha flattened on `background`. Bytes go to `fd` as
 * libjpeg makes them (64 KB at a time; write(2) retried on EINTR and short writes), or, when fd < 0, to a growable
 * buffer handed out by clanes_jpeg_stream_finish. With `optimize_coding` 0 it holds a few rows whatever the height;
 * with 1, libjpeg keeps every quantised coefficient (about 3 bytes a pixel for colour, 2 for grey) until the end.
 * Every call returns a status; after any error the stream only accepts clanes_jpeg_stream_destroy.
 */
typedef struct clanes_jpeg_stream clanes_jpeg_stream;

/* Starts a stream; on success *stream receives it (destroy it in all cases). */
int32_t clanes_jpeg_stream_begin(uint32_t width, uint32_t height, int32_t channels, int32_t bytes_per_sample,
                                 uint32_t background, int32_t quality, int32_t optimize_coding, int fd,
                                 clanes_jpeg_stream **stream, char *message, size_t message_capacity);

/* Encodes the next `count` rows (`bytes_per_row` apart). More rows than the height is an error. */
int32_t clanes_jpeg_stream_write_rows(clanes_jpeg_stream *stream, const uint8_t *pixels, size_t bytes_per_row,
                                      uint32_t count, char *message, size_t message_capacity);

/* Rows written so far. */
uint32_t clanes_jpeg_stream_rows_written(const clanes_jpeg_stream *stream);

/* Ends the JPEG once every row is in; *out / *out_size as for clanes_png_stream_finish. */
int32_t clanes_jpeg_stream_finish(clanes_jpeg_stream *stream, uint8_t **out, size_t *out_size,
                                  char *message, size_t message_capacity);

/* Frees the stream (NULL is allowed). Never closes the descriptor. */
void clanes_jpeg_stream_destroy(clanes_jpeg_stream *stream);

/* Frees a buffer returned by an encoder. NULL is allowed. */
void clanes_free(void *buffer);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_CODECS_H */
