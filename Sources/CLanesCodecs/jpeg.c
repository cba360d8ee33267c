/*
 * JPEG decode/encode over libjpeg-turbo. libjpeg reports errors through error_exit, which we
 * implement with longjmp back into the *_run function of this file; all libjpeg state lives
 * in a context struct owned by the calling function, so it stays valid after the jump.
 */
#include "clanes_codecs.h"
#include "codecs_internal.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#include "jpeg_internal.h"

/* Progressive files with more scans than this are rejected (a classic decode-time bomb). */
#define CLANES_JPEG_MAX_SCANS 1000


static void jpeg_fail(j_common_ptr cinfo, int32_t status) {
    jpeg_error_context *error = (jpeg_error_context *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    clanes_set_message(error->message, error->capacity, "JPEG: %s", text);
    error->status = status;
    longjmp(error->jump, 1);
}

static void jpeg_error_exit(j_common_ptr cinfo) {
    int code = cinfo->err->msg_code;
    int32_t status = CLANES_ERR_CORRUPT;
    if (code == JERR_OUT_OF_MEMORY) {
        status = CLANES_ERR_NO_MEMORY;
    } else if (code == JERR_INPUT_EMPTY || code == JERR_INPUT_EOF) {
        status = CLANES_ERR_TRUNCATED;
    } else if (code == JERR_NOT_COMPILED || code == JERR_CONVERSION_NOTIMPL || code == JERR_BAD_PRECISION) {
        status = CLANES_ERR_UNSUPPORTED;
    } else if (code == JERR_IMAGE_TOO_BIG || code == JERR_WIDTH_OVERFLOW) {
        status = CLANES_ERR_TOO_LARGE;
    }
    if (!cinfo->is_decompressor) {
        status = status == CLANES_ERR_NO_MEMORY ? status : CLANES_ERR_ENCODE;
    }
    jpeg_fail(cinfo, status);
}

/* Warnings: a premature end of data or damaged entropy-coded data fail the decode. */
static void jpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    if (msg_level != -1) {
        return; /* trace messages */
    }
    int code = cinfo->err->msg_code;
    if (code == JWRN_JPEG_EOF) {
        jpeg_fail(cinfo, CLANES_ERR_TRUNCATED);
    }
    if (code == JWRN_HUFF_BAD_CODE || code == JWRN_HIT_MARKER || code == JWRN_MUST_RESYNC) {
        jpeg_fail(cinfo, CLANES_ERR_CORRUPT);
    }
    cinfo->err->num_warnings++;
}

static void jpeg_output_nothing(j_common_ptr cinfo) {
    (void)cinfo;
}

void clanes_jpeg_install_errors(jpeg_error_context *error, char *message, size_t capacity) {
    jpeg_std_error(&error->manager);
    error->manager.error_exit = jpeg_error_exit;
    error->manager.emit_message = jpeg_emit_message;
    error->manager.output_message = jpeg_output_nothing;
    error->status = CLANES_OK;
    error->message = message;
    error->capacity = capacity;
}

void clanes_jpeg_limit_scans(j_common_ptr cinfo) {
    if (cinfo->is_decompressor && ((j_decompress_ptr)cinfo)->input_scan_number > CLANES_JPEG_MAX_SCANS) {
        jpeg_error_context *error = (jpeg_error_context *)cinfo->err;
        clanes_set_message(error->message, error->capacity, "JPEG: more than %d scans",
                           CLANES_JPEG_MAX_SCANS);
        error->status = CLANES_ERR_CORRUPT;
        longjmp(error->jump, 1);
    }
}

uint32_t clanes_jpeg_scaled_dimension(uint32_t dimension, int32_t scale_denom) {
    if (scale_denom <= 1) {
        return dimension;
    }
    return (uint32_t)(((uint64_t)dimension + (uint64_t)scale_denom - 1) / (uint64_t)scale_denom);
}

/* ---------- decoding ---------- */

typedef struct jpeg_decode_context {
    struct jpeg_decompress_struct cinfo;
    jpeg_error_context error;
    struct jpeg_progress_mgr progress;
    uint8_t *cmyk_row;
} jpeg_decode_context;

void clanes_cmyk_to_rgba(const uint8_t *cmyk, uint8_t *rgba, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, cmyk += 4, rgba += 4) {
        /* Adobe files store inverted CMYK: the samples are already 255 - ink. */
        unsigned c = inverted ? cmyk[0] : 255u - cmyk[0];
        unsigned m = inverted ? cmyk[1] : 255u - cmyk[1];
        unsigned y = inverted ? cmyk[2] : 255u - cmyk[2];
        unsigned k = inverted ? cmyk[3] : 255u - cmyk[3];
        rgba[0] = (uint8_t)((c * k + 127u) / 255u);
        rgba[1] = (uint8_t)((m * k + 127u) / 255u);
        rgba[2] = (uint8_t)((y * k + 127u) / 255u);
        rgba[3] = 0xFF;
    }
}

static int32_t jpeg_decode_run(jpeg_decode_context *ctx, const uint8_t *data, size_t size,
                               int32_t scale_denom, uint8_t *pixels, size_t bytes_per_row,
                               uint32_t width, uint32_t height, int32_t channels) {
    if (setjmp(ctx->error.jump)) {
        return ctx->error.status;
    }
    jpeg_create_decompress(&ctx->cinfo);
    ctx->progress.progress_monitor = clanes_jpeg_limit_scans;
    ctx->cinfo.progress = &ctx->progress;
    jpeg_mem_src(&ctx->cinfo, data, (unsigned long)size);
    if (jpeg_read_header(&ctx->cinfo, TRUE) != JPEG_HEADER_OK) {
        clanes_set_message(ctx->error.message, ctx->error.capacity, "JPEG holds tables but no image");
        return CLANES_ERR_CORRUPT;
    }
    int cmyk = 0;
    if (channels == 1 && ctx->cinfo.jpeg_color_space != JCS_GRAYSCALE) {
        clanes_set_message(ctx->error.message, ctx->error.capacity,
                           "a colour JPEG cannot be decoded to one channel");
        return CLANES_ERR_ARGUMENT;
    }
    switch (ctx->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        ctx->cinfo.out_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_EXT_RGBA;
        break;
    case JCS_YCbCr:
    case JCS_RGB:
        ctx->cinfo.out_color_space = JCS_EXT_RGBA;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        ctx->cinfo.out_color_space = JCS_CMYK;
        cmyk = 1;
        break;
    default:
        clanes_set_message(ctx->error.message, ctx->error.capacity,
                           "JPEG colour space with %d components is not supported",
                           ctx->cinfo.num_components);
        return CLANES_ERR_UNSUPPORTED;
    }
    ctx->cinfo.scale_num = 1;
    ctx->cinfo.scale_denom = (unsigned int)scale_denom;
    ctx->cinfo.dct_method = JDCT_ISLOW;
    jpeg_calc_output_dimensions(&ctx->cinfo);
    if (ctx->cinfo.output_width != width || ctx->cinfo.output_height != height) {
        clanes_set_message(ctx->error.message, ctx->error.capacity,
                           "JPEG decodes to %ux%u at 1/%d, expected %ux%u", ctx->cinfo.output_width,
                           ctx->cinfo.output_height, scale_denom, width, height);
        return CLANES_ERR_ARGUMENT;
    }
    jpeg_start_decompress(&ctx->cinfo);
    if (cmyk) {
        ctx->cmyk_row = (uint8_t *)malloc((size_t)width * 4);
        if (ctx->cmyk_row == NULL) {
            clanes_set_message(ctx->error.message, ctx->error.capacity, "out of memory for a CMYK row");
            return CLANES_ERR_NO_MEMORY;
        }
    }
    while (ctx->cinfo.output_scanline < ctx->cinfo.output_height) {
        uint8_t *destination = pixels + (size_t)ctx->cinfo.output_scanline * bytes_per_row;
        JSAMPROW row = cmyk ? ctx->cmyk_row : destination;
        if (jpeg_read_scanlines(&ctx->cinfo, &row, 1) != 1) {
            clanes_set_message(ctx->error.message, ctx->error.capacity, "JPEG decoder stalled");
            return CLANES_ERR_CORRUPT;
        }
        if (cmyk) {
            clanes_cmyk_to_rgba(ctx->cmyk_row, destination, width, ctx->cinfo.saw_Adobe_marker);
        }
    }
    /* No jpeg_finish_decompress: every row is decoded, and a file missing only its EOI is fine. */
    return CLANES_OK;
}

int32_t clanes_jpeg_decode(const uint8_t *data, size_t size, int32_t scale_denom,
                           uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                           char *message, size_t message_capacity) {
    return clanes_jpeg_decode_layout(data, size, scale_denom, pixels, bytes_per_row, width, height, 4,
                                     message, message_capacity);
}

int32_t clanes_jpeg_decode_layout(const uint8_t *data, size_t size, int32_t scale_denom,
                                  uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                  int32_t channels, char *message, size_t message_capacity) {
    if (channels != 1 && channels != 4) {
        clanes_set_message(message, message_capacity, "a JPEG decodes to 1 or 4 channels, not %d", channels);
        return CLANES_ERR_ARGUMENT;
    }
    int32_t status = clanes_check_layout_arguments(pixels, bytes_per_row, width, height, channels, 1,
                                                   message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) {
        clanes_set_message(message, message_capacity, "JPEG scale 1/%d is not 1, 1/2, 1/4 or 1/8",
                           scale_denom);
        return CLANES_ERR_ARGUMENT;
    }
    if (data == NULL || size < 3 || data[0] != 0xFF || data[1] != 0xD8) {
        clanes_set_message(message, message_capacity, "not a JPEG");
        return CLANES_ERR_UNSUPPORTED;
    }
    jpeg_decode_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    clanes_jpeg_install_errors(&ctx.error, message, message_capacity);
    ctx.cinfo.err = &ctx.error.manager;
    status = jpeg_decode_run(&ctx, data, size, scale_denom, pixels, bytes_per_row, width, height, channels);
    jpeg_destroy_decompress(&ctx.cinfo);
    free(ctx.cmyk_row);
    return status;
}

/* ---------- encoding ---------- */

typedef struct jpeg_encode_context {
    struct jpeg_compress_struct cinfo; /* first, so the j_compress_ptr libjpeg passes back casts to the context */
    jpeg_error_context error;
    struct jpeg_destination_mgr destination;
    clanes_buffer output;
    uint8_t *row; /* one flattened 8-bit row */
} jpeg_encode_context;

/* libjpeg writes straight into the shared growable buffer: the free space after `size` is its window. */
#define CLANES_JPEG_OUTPUT_CHUNK 65536

static void jpeg_offer_space(jpeg_encode_context *ctx) {
    ctx->destination.next_output_byte = ctx->output.bytes + ctx->output.size;
    ctx->destination.free_in_buffer = ctx->output.capacity - ctx->output.size;
}

static void jpeg_destination_init(j_compress_ptr cinfo) {
    jpeg_encode_context *ctx = (jpeg_encode_context *)cinfo;
    if (!clanes_buffer_reserve(&ctx->output, CLANES_JPEG_OUTPUT_CHUNK)) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_offer_space(ctx);
}

/* Called when the window is full: all of it has been written. */
static boolean jpeg_destination_empty(j_compress_ptr cinfo) {
    jpeg_encode_context *ctx = (jpeg_encode_context *)cinfo;
    ctx->output.size = ctx->output.capacity;
    if (!clanes_buffer_reserve(&ctx->output, CLANES_JPEG_OUTPUT_CHUNK)) {
        ERREXIT(cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_offer_space(ctx);
    return TRUE;
}

static void jpeg_destination_term(j_compress_ptr cinfo) {
    jpeg_encode_context *ctx = (jpeg_encode_context *)cinfo;
    ctx->output.size = (size_t)(ctx->destination.next_output_byte - ctx->output.bytes);
}

/* What one encoded row is made from: the caller's layout and the background alpha is flattened on. */
typedef struct jpeg_row_source {
    int32_t channels;         /* 1, 2 or 4 */
    int32_t bytes_per_sample; /* 1 or 2 */
    uint32_t background[3];   /* red, green, blue on the 16-bit scale; grey layouts use background[0] (the luma) */
} jpeg_row_source;

static inline uint32_t jpeg_sample16(const uint8_t *pixel, int32_t index, int32_t bytes_per_sample) {
    if (bytes_per_sample == 1) {
        return (uint32_t)pixel[index] * 257u;
    }
    uint16_t value;
    memcpy(&value, pixel + (size_t)index * 2, 2);
    return value;
}

/* One row of the caller's layout to 8-bit grey (1 sample) or RGB (3), alpha flattened on the background. */
static void jpeg_flatten_row(const jpeg_row_source *source, const uint8_t *row, uint8_t *out, uint32_t width) {
    size_t pixel_bytes = (size_t)source->channels * (size_t)source->bytes_per_sample;
    int colours = source->channels == 4 ? 3 : 1;
    int has_alpha = source->channels == 2 || source->channels == 4;
    for (uint32_t x = 0; x < width; x++) {
        const uint8_t *pixel = row + (size_t)x * pixel_bytes;
        uint32_t alpha = has_alpha ? jpeg_sample16(pixel, source->channels - 1, source->bytes_per_sample) : 65535u;
        for (int c = 0; c < colours; c++) {
            uint64_t value = jpeg_sample16(pixel, c, source->bytes_per_sample);
            value = (value * alpha + (uint64_t)source->background[c] * (65535u - alpha) + 32767u) / 65535u;
            out[(size_t)x * (size_t)colours + (size_t)c] = (uint8_t)((value * 255u + 32767u) / 65535u);
        }
    }
}

static int32_t jpeg_encode_run(jpeg_encode_context *ctx, const uint8_t *pixels, size_t bytes_per_row,
                               uint32_t width, uint32_t height, const jpeg_row_source *source, int32_t quality) {
    if (setjmp(ctx->error.jump)) {
        return ctx->error.status;
    }
    jpeg_create_compress(&ctx->cinfo);
    ctx->destination.init_destination = jpeg_destination_init;
    ctx->destination.empty_output_buffer = jpeg_destination_empty;
    ctx->destination.term_destination = jpeg_destination_term;
    ctx->cinfo.dest = &ctx->destination;
    ctx->cinfo.image_width = width;
    ctx->cinfo.image_height = height;
    int grey = source->channels <= 2;
    ctx->cinfo.input_components = grey ? 1 : 3;
    ctx->cinfo.in_color_space = grey ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&ctx->cinfo);
    jpeg_set_quality(&ctx->cinfo, quality, TRUE);
    ctx->cinfo.optimize_coding = TRUE;
    ctx->row = (uint8_t *)malloc((size_t)width * (grey ? 1 : 3));
    if (ctx->row == NULL) {
        ERREXIT(&ctx->cinfo, JERR_OUT_OF_MEMORY);
    }
    jpeg_start_compress(&ctx->cinfo, TRUE);
    while (ctx->cinfo.next_scanline < ctx->cinfo.image_height) {
        jpeg_flatten_row(source, pixels + (size_t)ctx->cinfo.next_scanline * bytes_per_row, ctx->row, width);
        JSAMPROW row = ctx->row;
        (void)jpeg_write_scanlines(&ctx->cinfo, &row, 1);
    }
    jpeg_finish_compress(&ctx->cinfo);
    return CLANES_OK;
}

int32_t clanes_jpeg_encode(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                           int32_t quality, uint8_t **out, size_t *out_size,
                           char *message, size_t message_capacity) {
    /* Transparent pixels are flattened on white (an opaque image is unchanged). */
    return clanes_jpeg_encode_layout(pixels, bytes_per_row, width, height, 4, 1, 0xFFFFFF, quality, out, out_size,
                                     message, message_capacity);
}

int32_t clanes_jpeg_encode_layout(const uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                                  int32_t channels, int32_t bytes_per_sample, uint32_t background,
                                  int32_t quality, uint8_t **out, size_t *out_size,
                                  char *message, size_t message_capacity) {
    int32_t status = clanes_check_layout_arguments(pixels, bytes_per_row, width, height, channels, bytes_per_sample,
                                                   message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    if (out == NULL || out_size == NULL || quality < 1 || quality > 100) {
        clanes_set_message(message, message_capacity, "bad output pointers or quality %d", quality);
        return CLANES_ERR_ARGUMENT;
    }
    if (width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION) {
        clanes_set_message(message, message_capacity, "JPEG cannot hold %ux%u (max %d per side)",
                           width, height, (int)JPEG_MAX_DIMENSION);
        return CLANES_ERR_TOO_LARGE;
    }
    *out = NULL;
    *out_size = 0;
    jpeg_encode_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    clanes_jpeg_install_errors(&ctx.error, message, message_capacity);
    ctx.cinfo.err = &ctx.error.manager;
    jpeg_row_source source = {channels, bytes_per_sample, {0, 0, 0}};
    uint32_t red = ((background >> 16) & 0xFF) * 257u, green = ((background >> 8) & 0xFF) * 257u;
    uint32_t blue = (background & 0xFF) * 257u;
    if (channels <= 2) {
        source.background[0] = (19595u * red + 38470u * green + 7471u * blue + 32768u) >> 16; /* Rec. 601 luma */
    } else {
        source.background[0] = red;
        source.background[1] = green;
        source.background[2] = blue;
    }
    status = jpeg_encode_run(&ctx, pixels, bytes_per_row, width, height, &source, quality);
    jpeg_destroy_compress(&ctx.cinfo);
    free(ctx.row);
    if (status != CLANES_OK) {
        free(ctx.output.bytes);
        return status;
    }
    *out = ctx.output.bytes;
    *out_size = ctx.output.size;
    return CLANES_OK;
}
