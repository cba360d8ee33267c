/*
 * clanes_codecs.h — small C shims over libpng and libjpeg-turbo for LanesImages.
 *
 * libpng and libjpeg report fatal errors with longjmp. A longjmp must never cross Swift
 * frames, so every setjmp/longjmp and every decode/encode loop lives in these C files.
 * Each entry point returns a status code (CLANES_OK or CLANES_ERR_*) and, on failure,
 * writes a NUL-terminated human-readable reason into the caller's `message` buffer.
 *
 * Whole decoding works on memory buffers, into a caller's clanes_pixels; clanes_rows.h decodes a few rows at a time
 * and clanes_encoder_* encodes rows. Calls that take more than a few values take one struct (as libspng does).
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
#define CLANES_FORMAT_HEIF 6  /* HEIF/HEIC (libheif) */
#define CLANES_FORMAT_JXL 7   /* JPEG XL (libjxl) */

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
    int32_t animated;        /* 1 when the header says the image is animated (WebP's flag, an AVIF sequence, a JPEG XL
                                animation) */
    uint32_t thumbnail_width;  /* an embedded thumbnail's size (a HEIF thumbnail item, a JPEG XL preview frame); */
    uint32_t thumbnail_height; /* 0x0 when the file has none */
} clanes_info;

/*
 * Reads the PNG IHDR or the JPEG markers up to the first scan (SOFn, APP1 Exif orientation), a WebP's VP8/VP8L/VP8X
 * header, a GIF's logical screen, an AVIF's primary item (libavif parses the container: it allocates a little, never
 * for pixels), a HEIF's primary item (libheif parses the container) or a JPEG XL's image header (libjxl). HEIF and
 * JPEG XL report their upright size and orientation 1: libheif and libjxl apply the file's rotation as they decode.
 * Never decodes pixel data.
 */
int32_t clanes_probe(const uint8_t *data, size_t size, clanes_info *info,
                     char *message, size_t message_capacity);

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

/*
 * Decodes any PNG (palette, grey, grey+alpha, RGB, RGBA; 1-16 bits; Adam7; tRNS) into `image`, whose size must equal
 * the header's (from clanes_probe). Colour types convert only towards more channels (grey to RGBA, not back); a
 * layout without alpha drops the file's alpha; samples are scaled to or expanded from 16 bits as the layout says.
 */
int32_t clanes_png_decode(const uint8_t *data, size_t size, const clanes_pixels *image,
                          char *message, size_t message_capacity);

/*
 * Reads a PNG's tEXt and iTXt chunks that come before the image data (where libpng's png_set_text, GdkPixbuf and the
 * thumbnailers put them) without decoding any pixels: into `out` as `key NUL value NUL` pairs, at most `capacity`
 * bytes (pairs that do not fit are left out); *length receives the bytes used and *count the pairs. Each chunk is
 * capped as in a decode (1 MiB) and every other ancillary chunk is skipped, so a hostile file costs no more than its
 * header. Fails like clanes_png_decode on data that is not a PNG or is cut short before its image data.
 */
int32_t clanes_png_read_text(const uint8_t *data, size_t size, char *out, size_t capacity, size_t *length,
                             int32_t *count, char *message, size_t message_capacity);

/*
 * The largest single allocation libpng made during the calling thread's last clanes_png_decode (0 before any):
 * hostile-input tests check that a chunk's declared length never becomes an allocation.
 */
size_t clanes_png_last_largest_allocation(void);

/*
 * Decodes a baseline/progressive JPEG (grey, YCbCr, RGB, CMYK, YCCK) into `image`: 4 channels (RGBA8, alpha 255) or,
 * for a greyscale JPEG, 1; 8-bit samples. Scaled by 1/scale_denom in the DCT domain (1, 2, 4 or 8): the image's size
 * must equal clanes_jpeg_scaled_dimension() of the header's. A premature end of data is an error
 * (CLANES_ERR_TRUNCATED), as are bad Huffman codes and markers inside entropy-coded data (CLANES_ERR_CORRUPT).
 */
int32_t clanes_jpeg_decode(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                           char *message, size_t message_capacity);

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
