/*
 * clanes_decoder.h — the one decoder: PNG, JPEG, WebP, GIF, AVIF, HEIF/HEIC and JPEG XL through one context.
 *
 * libspng's decoder shape: a context is created with its options, given a source (bytes in memory, a regular file's
 * descriptor, or bytes pushed as they arrive), probed for the header, then decoded whole, in rows, incrementally
 * (previews of a progressive file included) or frame by frame. Every call returns CLANES_OK or one CLANES_ERR_*
 * status (clanes_codecs.h) and leaves one line in the context, read with clanes_decoder_message; clanes_strerror
 * names a status. After an error the context only accepts clanes_decoder_message and clanes_decoder_destroy.
 *
 * The limits (max_pixels, max_bytes, max_frames) are checked from the header, for every format, before anything the
 * size of an image is allocated. Per-format parts (png.c, jpeg.c, webp.c, gif.c, avif.c, heif.c, jxl.c) sit behind
 * it; which calls a format answers:
 *
 *   - PNG, JPEG: decode whole (any layout for PNG; a JPEG at 1/scale_denom), rows (memory or descriptor), pushed
 *     bytes with previews;
 *   - WebP, GIF, AVIF, HEIF, JPEG XL: frames (a still image is one frame; whole = the first frame, RGBA8). Their
 *     libraries read no rows. Pushed bytes are kept until the input ends, then decoded as from memory.
 *
 *     clanes_decoder_options options = {0};
 *     options.max_pixels = 100000000;
 *     clanes_decoder *decoder = NULL;
 *     clanes_info header;
 *     if (clanes_decoder_create(&options, &decoder) == CLANES_OK
 *         && clanes_decoder_set_buffer(decoder, bytes, size) == CLANES_OK
 *         && clanes_decoder_header(decoder, &header) == CLANES_OK) { ... clanes_decoder_decode(decoder, &image) ... }
 *     else fprintf(stderr, "%s\n", clanes_decoder_message(decoder));
 *     clanes_decoder_destroy(decoder);
 */
#ifndef CLANES_DECODER_H
#define CLANES_DECODER_H

#include "clanes_codecs.h"

#ifdef __cplusplus
extern "C" {
#endif

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
    uint32_t thumbnail_width;  /* an embedded thumbnail's size (a JPEG's Exif thumbnail, a HEIF thumbnail item, a */
    uint32_t thumbnail_height; /* JPEG XL preview frame); 0x0 when the file has none */
    uint64_t thumbnail_offset; /* where a JPEG's Exif thumbnail (itself a JPEG) lies in the file: clanes_decoder_set_ */
    uint64_t thumbnail_length; /* buffer on those bytes decodes it; 0 0 for the other formats and none */
    uint32_t frame_count;      /* 1 for a still image; 0 for an animation until clanes_decoder_start_frames counts */
} clanes_info;

/* How to decode: zero-initialise and fill what matters (zero fields take the defaults). */
typedef struct clanes_decoder_options {
    uint64_t max_pixels;       /* a header with more stored pixels fails with CLANES_ERR_TOO_LARGE (0: 100 000 000) */
    uint64_t max_bytes;        /* frames: the frames decoded plus the decoder's canvases at most (0: no limit) */
    uint32_t max_frames;       /* frames: at most this many (0: no limit besides max_bytes) */
    int32_t first_frame_only;  /* frames: only the first frame will be read (the limits count one) */
    int32_t scale_denom;       /* JPEG: decoded at 1/1, 1/2, 1/4 or 1/8 in the DCT domain (0: 1) */
    uint32_t scaled_width;     /* a still WebP: decoded straight to this size; an opaque GIF's first frame: shrunk by */
    uint32_t scaled_height;    /* the largest whole factor keeping at least this size (0: stored size) */
    int32_t channels;          /* rows (memory, descriptor): 4 RGBA (0 means 4), or for a grey PNG 1 or 2 */
    int32_t bytes_per_sample;  /* rows: 1 (0 means 1), or for a PNG 2 (native-endian uint16) */
    int32_t previews;          /* pushed bytes: keep what previews need (buffered-image JPEG, Adam7 passes) */
    int32_t keep_input;        /* pushed bytes: keep a copy of every byte, so the image can also be decoded whole
                                  (clanes_decoder_decode) when its rows cannot be used */
} clanes_decoder_options;

/* What a row decoder delivers (clanes_decoder_start_rows). */
typedef struct clanes_row_layout {
    uint32_t width;            /* output width (a JPEG's DCT-scaled width) */
    uint32_t height;           /* output height */
    int32_t channels;          /* samples per pixel in the rows handed out (1 grey, 2 grey+alpha, 4 R G B A) */
    int32_t bytes_per_sample;  /* 1, or 2 (native-endian uint16) */
    int32_t whole_image;       /* 1 when the decoder holds the whole image (interlaced PNG) */
    int32_t opaque;            /* 1 when every alpha is 255 (a JPEG; a PNG without alpha or tRNS) */
    size_t held_bytes;         /* the decoder's own row/strip/image buffers (not the encoded input) */
} clanes_row_layout;

/* Where a decoder fed pushed bytes stands (clanes_decoder_progress). */
typedef struct clanes_progress {
    int32_t header_ready;      /* width, height and the rest below are known */
    uint32_t width;            /* the rows' width (a JPEG's DCT-scaled width) */
    uint32_t height;
    int32_t opaque;            /* every alpha is 255 */
    int32_t progressive;       /* a progressive JPEG or an interlaced PNG (rows come only after all input) */
    uint32_t previews_ready;   /* scans (JPEG) or passes (PNG) complete, whose preview can be rendered now */
    uint32_t rows_read;        /* rows handed out so far */
    int32_t input_complete;    /* the image's last byte has been consumed */
    size_t held_bytes;         /* the decoder's buffers, the unconsumed (and kept) input included */
} clanes_progress;

/* What a frame decoder hands out (clanes_decoder_start_frames). */
typedef struct clanes_frames_report {
    uint32_t canvas_width;     /* the stored size */
    uint32_t canvas_height;
    uint32_t width;            /* the size of the frames handed out (the scaled size, or the canvas) */
    uint32_t height;
    uint32_t frame_count;      /* 1 for a still image */
    int32_t loop_count;        /* 0: loop for ever (also a still image) */
    int32_t opaque;            /* 1 when no frame can have a non-opaque pixel */
    size_t held_bytes;         /* the decoder's own buffers (canvases, a frame's indices), besides the input */
} clanes_frames_report;

typedef struct clanes_decoder clanes_decoder;

/* A new context with `options` (NULL: the defaults); *decoder receives it (destroy it in all cases). */
int32_t clanes_decoder_create(const clanes_decoder_options *options, clanes_decoder **decoder);

/* The source, set once: `size` bytes at `data` (which must outlive the context), the regular file open at `fd`
 * (`size` bytes, read with pread from offset 0; never closed, its offset untouched), or pushed bytes. */
int32_t clanes_decoder_set_buffer(clanes_decoder *decoder, const uint8_t *data, size_t size);
int32_t clanes_decoder_set_fd(clanes_decoder *decoder, int fd, size_t size);
int32_t clanes_decoder_set_push(clanes_decoder *decoder);

/* Appends the next bytes of a pushed source (`end_of_input`: none will follow) and decodes as far as they allow
 * (header, a progressive file's scans or passes). A PNG or JPEG ending early fails with CLANES_ERR_TRUNCATED here. */
int32_t clanes_decoder_push(clanes_decoder *decoder, const uint8_t *data, size_t size, int32_t end_of_input);

/* Reads the header (no pixels) and checks max_pixels. A pushed source answers CLANES_ERR_TRUNCATED until enough
 * bytes have arrived. HEIF and JPEG XL report their upright size and orientation 1 (their libraries rotate). Over
 * max_pixels (CLANES_ERR_TOO_LARGE) `header` is still filled, so the caller can say what was refused. */
int32_t clanes_decoder_header(clanes_decoder *decoder, clanes_info *header);

/* Decodes the whole image into `image`, whose size must be the header's (a JPEG's: clanes_decoder_scaled_size).
 * PNG: any layout (see clanes_pixels); JPEG: RGBA8, or grey8 for a greyscale one; frame formats: the first frame,
 * RGBA8, of the size clanes_decoder_start_frames reports (called here if it was not). A pushed source needs
 * keep_input (PNG, JPEG) and all its bytes. */
int32_t clanes_decoder_decode(clanes_decoder *decoder, const clanes_pixels *image);

/* Decodes the embedded thumbnail the header reports (thumbnail_width x thumbnail_height; a JPEG's Exif thumbnail, a
 * HEIF thumbnail item, a JPEG XL preview frame) into `image`, RGBA8 of that size. A JPEG's thumbnail comes in the
 * stored orientation (apply the header's, as to the image); HEIF's and JPEG XL's come upright. A file with none
 * answers CLANES_ERR_UNSUPPORTED and the context stays usable (decode the image instead); a thumbnail larger than
 * its image, or one that decodes to another size than its header said, is CLANES_ERR_CORRUPT. */
int32_t clanes_decoder_decode_thumbnail(clanes_decoder *decoder, const clanes_pixels *image);

/* The size a whole decode or the rows have: the header's, a JPEG's after DCT scaling by 1/scale_denom. */
int32_t clanes_decoder_scaled_size(clanes_decoder *decoder, uint32_t *width, uint32_t *height);

/* Starts decoding rows top to bottom (PNG, JPEG from memory or a descriptor) in the options' layout. */
int32_t clanes_decoder_start_rows(clanes_decoder *decoder, clanes_row_layout *layout);

/* Writes up to `count` of the next rows `bytes_per_row` apart; *delivered says how many (from memory or a file:
 * `count`; from pushed bytes: as many as have arrived, 0 meaning push more). Past the last row is an error. */
int32_t clanes_decoder_read_rows(clanes_decoder *decoder, uint8_t *rows, size_t bytes_per_row, uint32_t count,
                                 uint32_t *delivered);

/* Rows handed out so far. */
uint32_t clanes_decoder_rows_read(const clanes_decoder *decoder);

/* A pushed source: where the decoder stands. */
int32_t clanes_decoder_progress(const clanes_decoder *decoder, clanes_progress *progress);

/* A pushed source: renders the latest preview (progress.previews_ready > 0, before any row is read) as RGBA8. */
int32_t clanes_decoder_preview(clanes_decoder *decoder, uint8_t *rows, size_t bytes_per_row);

/* Starts handing out frames (WebP, GIF, AVIF, HEIF, JPEG XL); walks an animation's frame headers and checks the
 * limits (canvas pixels, frame count, bytes) before anything their size is allocated. */
int32_t clanes_decoder_start_frames(clanes_decoder *decoder, clanes_frames_report *report);

/* Writes the next frame as RGBA8 rows of report.width pixels, composited as browsers show it; *delay_ms receives how
 * long it is shown (as the file says). */
int32_t clanes_decoder_next_frame(clanes_decoder *decoder, uint8_t *pixels, size_t bytes_per_row, int32_t *delay_ms);

/* A PNG's tEXt/iTXt pairs before its image data, as `key NUL value NUL` into `out` (at most `capacity` bytes; pairs
 * that do not fit are left out), without decoding pixels. A source in memory only. */
int32_t clanes_decoder_read_text(clanes_decoder *decoder, char *out, size_t capacity, size_t *length, int32_t *count);

/* The line the last failing call left ("" when none; "out of memory" for a context that could not be made). */
const char *clanes_decoder_message(const clanes_decoder *decoder);

/* A short name for a status ("truncated", "corrupt", ...). */
const char *clanes_strerror(int32_t status);

/* Frees the context (NULL is allowed). Never closes a descriptor. */
void clanes_decoder_destroy(clanes_decoder *decoder);

/* The size of one dimension after JPEG DCT scaling by 1/scale_denom (rounds up, as libjpeg does). */
uint32_t clanes_jpeg_scaled_dimension(uint32_t dimension, int32_t scale_denom);

/* Test hook: the largest single allocation libpng made during the calling thread's last whole PNG decode or text
 * read (0 before any), so hostile-input tests can check that no declared length became an allocation. */
size_t clanes_png_last_largest_allocation(void);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_DECODER_H */
