/*
 * PNG decoding over libpng (encoding: png_encoder.c). libpng reports errors by longjmp; every setjmp lives in a
 * function of this file whose mutable state sits in a context struct owned by its caller,
 * so nothing read after a longjmp is an indeterminate local.
 */
#include "decoder_parts.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---------- decoding ---------- */

typedef struct png_decode_context {
    const uint8_t *data;
    size_t size;
    size_t offset;
    int truncated;
    png_bytep *rows;
    char *message;
    size_t capacity;
    size_t largest_allocation;
} png_decode_context;

/* The largest single allocation libpng made during this thread's last decode (tests check hostile inputs with it). */
static _Thread_local size_t png_last_largest_allocation;

size_t clanes_png_last_largest_allocation(void) {
    return png_last_largest_allocation;
}

static png_voidp png_counting_malloc(png_structp png, png_alloc_size_t size) {
    png_decode_context *ctx = (png_decode_context *)png_get_mem_ptr(png);
    if (ctx != NULL && size > ctx->largest_allocation) {
        ctx->largest_allocation = size;
    }
    return malloc(size);
}

static void png_counting_free(png_structp png, png_voidp pointer) {
    (void)png;
    free(pointer);
}

static void png_decode_error(png_structp png, png_const_charp text) {
    png_decode_context *ctx = (png_decode_context *)png_get_error_ptr(png);
    clanes_png_raise(png, ctx->message, ctx->capacity, "PNG", text);
}

void clanes_png_ignore_warning(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

void clanes_png_raise(png_structp png, char *message, size_t capacity, const char *prefix, png_const_charp text) {
    clanes_set_message(message, capacity, "%s: %s", prefix, text);
    png_longjmp(png, 1);
}

static void png_read_memory(png_structp png, png_bytep out, size_t length) {
    png_decode_context *ctx = (png_decode_context *)png_get_io_ptr(png);
    if (length > ctx->size - ctx->offset) {
        ctx->truncated = 1;
        png_error(png, "unexpected end of data");
    }
    memcpy(out, ctx->data + ctx->offset, length);
    ctx->offset += length;
}

/*
 * Bounds what ancillary chunks may cost before libpng allocates for them. A chunk's declared length is untrusted: a
 * 61-byte file whose tEXt chunk claims 2^31-1 bytes made libpng allocate (and touch) 2 GB before finding the file
 * short. The pixels never need text, time, palettes for other devices, ICC profiles or Exif (orientation comes from
 * JPEG only), so those chunks are skipped as they stream by (read and discarded in small pieces, never buffered);
 * any other ancillary chunk is capped at CLANES_PNG_CHUNK_MAX bytes (also the limit of a decompressed zTXt/iCCP) and
 * at most CLANES_PNG_CHUNK_CACHE of them are kept.
 */
enum { CLANES_PNG_CHUNK_MAX = 1 << 20, CLANES_PNG_CHUNK_CACHE = 64 };

void clanes_png_limit_ancillary(png_structp png) {
    static const png_byte ignored[] =
        "tEXt\0zTXt\0iTXt\0tIME\0iCCP\0sPLT\0eXIf\0hIST\0pCAL\0sCAL\0pHYs\0oFFs\0sBIT\0sTER\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0); /* unknown chunks: skipped */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ignored, (int)(sizeof(ignored) / 5));
    png_set_chunk_malloc_max(png, CLANES_PNG_CHUNK_MAX);
    png_set_chunk_cache_max(png, CLANES_PNG_CHUNK_CACHE);
    png_set_user_limits(png, 0x7FFFFFFF, 0x7FFFFFFF);
}

int32_t clanes_png_create_reader(void *owner, clanes_png_error_fn on_error, png_structp *png, png_infop *info,
                                 char *message, size_t capacity) {
    *png = png_create_read_struct(PNG_LIBPNG_VER_STRING, owner, on_error, clanes_png_ignore_warning);
    *info = *png ? png_create_info_struct(*png) : NULL;
    if (*png == NULL || *info == NULL) {
        clanes_set_message(message, capacity, "out of memory creating the PNG decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    clanes_png_limit_ancillary(*png);
    return CLANES_OK;
}

/*
 * Sets the transforms that turn any PNG (palette, grey, grey+alpha, RGB, RGBA; 1-16 bits; tRNS) into rows of
 * `channels` (1, 2, 4) samples of `bytes_per_sample` (1, 2: native-endian): the one place both decoders (png.c's whole
 * decode, rows.c's rows) choose them. Colour converts only towards more channels; a layout without alpha drops the
 * file's. Returns 0, setting nothing, when a colour PNG is asked for fewer than 4 channels; *opaque (when not NULL)
 * receives whether the file has neither an alpha channel nor tRNS.
 */
int clanes_png_set_layout(png_structp png, png_infop info, int32_t channels, int32_t bytes_per_sample, int *opaque) {
    int colour_type = png_get_color_type(png, info);
    int depth = png_get_bit_depth(png, info);
    int has_trns = png_get_valid(png, info, PNG_INFO_tRNS) != 0;
    int grey = colour_type == PNG_COLOR_TYPE_GRAY || colour_type == PNG_COLOR_TYPE_GRAY_ALPHA;
    int has_alpha = (colour_type & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    if (!grey && channels < 4) {
        return 0;
    }
    if (opaque != NULL) {
        *opaque = !has_alpha;
    }
    if (colour_type == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(png);
    }
    if (colour_type == PNG_COLOR_TYPE_GRAY && depth < 8) {
        png_set_expand_gray_1_2_4_to_8(png);
    }
    if (has_trns) {
        png_set_tRNS_to_alpha(png);
    }
    if (depth == 16 && bytes_per_sample == 1) {
        png_set_scale_16(png);
    } else if (depth < 16 && bytes_per_sample == 2) {
        png_set_expand_16(png);
    }
    if (bytes_per_sample == 2 && clanes_host_is_little_endian()) {
        png_set_swap(png);
    }
    if (grey && channels == 4) {
        png_set_gray_to_rgb(png);
    }
    int wants_alpha = channels == 2 || channels == 4;
    if (wants_alpha && !has_alpha) {
        png_set_add_alpha(png, 0xFFFF, PNG_FILLER_AFTER);
    } else if (!wants_alpha && has_alpha) {
        png_set_strip_alpha(png);
    }
    return 1;
}

/* Runs libpng; returns CLANES_OK or an error status. Only `ctx` and `png`/`info` are used after setjmp. */
static int32_t png_decode_run(png_decode_context *ctx, png_structp png, png_infop info,
                              uint8_t *pixels, size_t bytes_per_row, uint32_t width, uint32_t height,
                              int32_t channels, int32_t bytes_per_sample) {
    if (setjmp(png_jmpbuf(png))) {
        return ctx->truncated ? CLANES_ERR_TRUNCATED : CLANES_ERR_CORRUPT;
    }
    png_set_read_fn(png, ctx, png_read_memory);
    clanes_png_limit_ancillary(png);
    png_read_info(png, info);

    if (png_get_image_width(png, info) != width || png_get_image_height(png, info) != height) {
        clanes_set_message(ctx->message, ctx->capacity, "PNG is %ux%u, expected %ux%u",
                           png_get_image_width(png, info), png_get_image_height(png, info), width, height);
        return CLANES_ERR_ARGUMENT;
    }
    if (!clanes_png_set_layout(png, info, channels, bytes_per_sample, NULL)) {
        clanes_set_message(ctx->message, ctx->capacity, "a colour PNG cannot be decoded to %d channel(s)", channels);
        return CLANES_ERR_ARGUMENT;
    }
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);

    size_t row_bytes = (size_t)width * (size_t)channels * (size_t)bytes_per_sample;
    if (png_get_rowbytes(png, info) != row_bytes) {
        clanes_set_message(ctx->message, ctx->capacity, "PNG transformation produced %zu bytes per row, not %zu",
                           (size_t)png_get_rowbytes(png, info), row_bytes);
        return CLANES_ERR_UNSUPPORTED;
    }
    ctx->rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (ctx->rows == NULL) {
        clanes_set_message(ctx->message, ctx->capacity, "out of memory for %u row pointers", height);
        return CLANES_ERR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < height; y++) {
        ctx->rows[y] = pixels + (size_t)y * bytes_per_row;
    }
    png_read_image(png, ctx->rows);
    return CLANES_OK;
}

/* Checks the signature of ctx's bytes and creates libpng's reader over them with the counting allocator: CLANES_OK,
   or the error (its message set) with nothing left to free. The caller sets its own setjmp afterwards. */
static int32_t png_open_reader(png_decode_context *ctx, png_structp *png, png_infop *info) {
    if (ctx->data == NULL || ctx->size < 8 || png_sig_cmp(ctx->data, 0, 8) != 0) {
        clanes_set_message(ctx->message, ctx->capacity, "not a PNG");
        return CLANES_ERR_UNSUPPORTED;
    }
    *png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, ctx, png_decode_error, clanes_png_ignore_warning,
                                    ctx, png_counting_malloc, png_counting_free);
    *info = *png ? png_create_info_struct(*png) : NULL;
    if (*png == NULL || *info == NULL) {
        png_destroy_read_struct(*png ? png : NULL, NULL, NULL);
        clanes_set_message(ctx->message, ctx->capacity, "out of memory creating the PNG decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    return CLANES_OK;
}

int32_t clanes_png_decode(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                          char *message, size_t message_capacity) {
    if (scale_denom > 1) {
        clanes_set_message(message, message_capacity, "a PNG decodes at scale 1 only, not 1/%d", scale_denom);
        return CLANES_ERR_ARGUMENT;
    }
    if (image == NULL) {
        clanes_set_message(message, message_capacity, "no pixel buffer");
        return CLANES_ERR_ARGUMENT;
    }
    uint8_t *pixels = image->pixels;
    size_t bytes_per_row = image->bytes_per_row;
    uint32_t width = image->width, height = image->height;
    int32_t channels = image->channels, bytes_per_sample = image->bytes_per_sample;
    int32_t status = clanes_check_layout_arguments(pixels, bytes_per_row, width, height, channels, bytes_per_sample,
                                                   message, message_capacity);
    if (status != CLANES_OK) {
        return status;
    }
    png_decode_context ctx = {data, size, 0, 0, NULL, message, message_capacity, 0};
    png_structp png = NULL;
    png_infop info = NULL;
    status = png_open_reader(&ctx, &png, &info);
    if (status != CLANES_OK) {
        return status;
    }
    status = png_decode_run(&ctx, png, info, pixels, bytes_per_row, width, height, channels, bytes_per_sample);
    png_destroy_read_struct(&png, &info, NULL);
    free(ctx.rows);
    png_last_largest_allocation = ctx.largest_allocation;
    return status;
}

/* ---------- text ---------- */

/* Runs libpng up to the image data and copies the text it kept; only `ctx`, `png` and `info` are used after setjmp. */
static int32_t png_read_text_run(png_decode_context *ctx, png_structp png, png_infop info, char *out, size_t capacity,
                                 size_t *length, int32_t *count) {
    if (setjmp(png_jmpbuf(png))) {
        return ctx->truncated ? CLANES_ERR_TRUNCATED : CLANES_ERR_CORRUPT;
    }
    png_set_read_fn(png, ctx, png_read_memory);
    clanes_png_limit_ancillary(png);
    static const png_byte wanted[] = "tEXt\0iTXt\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_AS_DEFAULT, wanted, 2); /* read as usual, within the caps */
    png_read_info(png, info);
    png_textp texts = NULL;
    int n = png_get_text(png, info, &texts, NULL);
    size_t used = 0;
    int32_t kept = 0;
    for (int i = 0; i < n; i++) {
        size_t key = strlen(texts[i].key), value = texts[i].text ? strlen(texts[i].text) : 0;
        if (key + value + 2 > capacity - used) {
            continue;
        }
        memcpy(out + used, texts[i].key, key + 1);
        used += key + 1;
        if (value > 0) {
            memcpy(out + used, texts[i].text, value);
        }
        out[used + value] = 0;
        used += value + 1;
        kept++;
    }
    *length = used;
    *count = kept;
    return CLANES_OK;
}

int32_t clanes_png_read_text(const uint8_t *data, size_t size, char *out, size_t capacity, size_t *length,
                             int32_t *count, char *message, size_t message_capacity) {
    if (out == NULL || length == NULL || count == NULL) {
        clanes_set_message(message, message_capacity, "no text buffer");
        return CLANES_ERR_ARGUMENT;
    }
    *length = 0;
    *count = 0;
    png_decode_context ctx = {data, size, 0, 0, NULL, message, message_capacity, 0};
    png_structp png = NULL;
    png_infop info = NULL;
    int32_t status = png_open_reader(&ctx, &png, &info);
    if (status != CLANES_OK) {
        return status;
    }
    status = png_read_text_run(&ctx, png, info, out, capacity, length, count);
    png_destroy_read_struct(&png, &info, NULL);
    png_last_largest_allocation = ctx.largest_allocation;
    if (status != CLANES_OK) {
        *length = 0;
        *count = 0;
    }
    return status;
}

/* ---------- the header (clanes_decoder_header) ---------- */

static int png_depth_is_valid(uint8_t colour_type, uint8_t depth) {
    switch (colour_type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: case 4: case 6: return depth == 8 || depth == 16;
    default: return 0;
    }
}

/* Whether a tRNS chunk comes before the first IDAT (chunks are walked by their lengths, bounded by `size`). */
static int png_has_trns(const uint8_t *data, size_t size) {
    size_t offset = 8 + 25; /* signature, IHDR */
    while (size - offset >= 12) {
        uint32_t length = clanes_be32(data + offset);
        const uint8_t *type = data + offset + 4;
        if (memcmp(type, "tRNS", 4) == 0) return 1;
        if (memcmp(type, "IDAT", 4) == 0 || length > size - offset - 12) return 0;
        offset += 12 + (size_t)length;
    }
    return 0;
}

int32_t clanes_png_probe(const uint8_t *data, size_t size, clanes_info *info,
                         char *message, size_t capacity) {
    /* signature(8) + length(4) + "IHDR"(4) + 13 bytes + CRC(4) */
    if (size < 33) {
        clanes_set_message(message, capacity, "PNG ends inside its header (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    const uint8_t *chunk = data + 8;
    if (clanes_be32(chunk) != 13 || memcmp(chunk + 4, "IHDR", 4) != 0) {
        clanes_set_message(message, capacity, "PNG does not start with a valid IHDR chunk");
        return CLANES_ERR_CORRUPT;
    }
    uLong crc = crc32(0L, chunk + 4, 17);
    if ((uint32_t)crc != clanes_be32(chunk + 21)) {
        clanes_set_message(message, capacity, "PNG IHDR chunk has a bad CRC");
        return CLANES_ERR_CORRUPT;
    }
    const uint8_t *ihdr = chunk + 8;
    uint32_t width = clanes_be32(ihdr);
    uint32_t height = clanes_be32(ihdr + 4);
    uint8_t depth = ihdr[8], colour_type = ihdr[9], interlace = ihdr[12];
    if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) {
        clanes_set_message(message, capacity, "PNG has invalid dimensions %ux%u", width, height);
        return CLANES_ERR_CORRUPT;
    }
    if (!png_depth_is_valid(colour_type, depth) || ihdr[10] != 0 || ihdr[11] != 0 || interlace > 1) {
        clanes_set_message(message, capacity, "PNG IHDR has an invalid colour type/bit depth (%u/%u)",
                           colour_type, depth);
        return CLANES_ERR_CORRUPT;
    }
    static const int32_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
    info->format = CLANES_FORMAT_PNG;
    info->width = width;
    info->height = height;
    info->orientation = 1;
    info->components = channels[colour_type];
    info->bit_depth = depth;
    info->progressive = interlace;
    info->layout_channels = colour_type == 0 ? (png_has_trns(data, size) ? 2 : 1) : colour_type == 4 ? 2 : 4;
    info->layout_bytes = depth == 16 ? 2 : 1;
    return CLANES_OK;
}
