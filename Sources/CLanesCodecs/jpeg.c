/*
 * JPEG decoding over libjpeg-turbo, and the error manager every JPEG shim shares (encoding: jpeg_stream.c).
 * libjpeg reports errors through error_exit, which we implement with longjmp back into the *_run
 * function of this file; all libjpeg state lives in a context struct owned by the calling
 * function, so it stays valid after the jump.
 */
#include "decoder_parts.h"

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

void clanes_jpeg_install_errors(j_common_ptr cinfo, jpeg_error_context *error, char *message, size_t capacity) {
    cinfo->err = jpeg_std_error(&error->manager);
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

void clanes_jpeg_create_limited(j_decompress_ptr cinfo, struct jpeg_progress_mgr *progress, void *client,
                                int *created) {
    jpeg_create_decompress(cinfo);
    *created = 1;
    progress->progress_monitor = clanes_jpeg_limit_scans;
    cinfo->progress = progress;
    cinfo->client_data = client;
}

static void clanes_jpeg_source_nothing(j_decompress_ptr cinfo) {
    (void)cinfo;
}

void clanes_jpeg_use_source(j_decompress_ptr cinfo, struct jpeg_source_mgr *source,
                            boolean (*fill)(j_decompress_ptr), void (*skip)(j_decompress_ptr, long)) {
    source->init_source = clanes_jpeg_source_nothing;
    source->fill_input_buffer = fill;
    source->skip_input_data = skip;
    source->resync_to_restart = jpeg_resync_to_restart;
    source->term_source = clanes_jpeg_source_nothing;
    cinfo->src = source;
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
    int created;
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
    clanes_jpeg_create_limited(&ctx->cinfo, &ctx->progress, ctx, &ctx->created);
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

int32_t clanes_jpeg_decode(const uint8_t *data, size_t size, int32_t scale_denom, const clanes_pixels *image,
                           char *message, size_t message_capacity) {
    if (image == NULL || image->bytes_per_sample != 1) {
        clanes_set_message(message, message_capacity, "a JPEG decodes to 8-bit samples");
        return CLANES_ERR_ARGUMENT;
    }
    uint8_t *pixels = image->pixels;
    size_t bytes_per_row = image->bytes_per_row;
    uint32_t width = image->width, height = image->height;
    int32_t channels = image->channels;
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
    clanes_jpeg_install_errors((j_common_ptr)&ctx.cinfo, &ctx.error, message, message_capacity);
    status = jpeg_decode_run(&ctx, data, size, scale_denom, pixels, bytes_per_row, width, height, channels);
    jpeg_destroy_decompress(&ctx.cinfo);
    free(ctx.cmyk_row);
    return status;
}

int32_t clanes_jpeg_choose_rgba_output(j_decompress_ptr cinfo, int *cmyk, char *message, size_t capacity) {
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGBA;
        return CLANES_OK;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        *cmyk = 1;
        return CLANES_OK;
    default:
        clanes_set_message(message, capacity, "JPEG colour space with %d components is not supported",
                           cinfo->num_components);
        return CLANES_ERR_UNSUPPORTED;
    }
}

/* ---------- the header (clanes_decoder_header): markers up to the first scan ---------- */

/* What an Exif APP1 payload says: the orientation (IFD0's 0x0112; 1 if absent or invalid) and where IFD1's JPEG
 * thumbnail lies in the payload (0x0201 offset, 0x0202 length; 0 and 0 when there is none within the payload). */
typedef struct exif_fields {
    int32_t orientation;
    size_t thumbnail_offset;
    size_t thumbnail_length;
} exif_fields;

typedef struct tiff_reader {
    const uint8_t *bytes;
    size_t length;
    int little;
} tiff_reader;

static uint16_t tiff_16(const tiff_reader *t, size_t at) {
    return t->little ? clanes_le16(t->bytes + at) : clanes_be16(t->bytes + at);
}

static uint32_t tiff_32(const tiff_reader *t, size_t at) {
    return t->little ? clanes_le32(t->bytes + at) : clanes_be32(t->bytes + at);
}

/* Walks the IFD at `ifd`, calling `use` on each whole entry; returns the next IFD's offset (0: none or bad). */
static uint32_t tiff_walk(const tiff_reader *t, uint32_t ifd, exif_fields *fields,
                          void (*use)(const tiff_reader *, size_t, exif_fields *)) {
    if (ifd > t->length || t->length - ifd < 2) return 0;
    uint16_t count = tiff_16(t, ifd);
    size_t entry = (size_t)ifd + 2;
    for (uint16_t i = 0; i < count; i++, entry += 12) {
        if (entry + 12 > t->length) return 0;
        use(t, entry, fields);
    }
    return entry + 4 <= t->length ? tiff_32(t, entry) : 0;
}

static void exif_ifd0_entry(const tiff_reader *t, size_t entry, exif_fields *fields) {
    if (tiff_16(t, entry) != 0x0112 || tiff_16(t, entry + 2) != 3 || tiff_32(t, entry + 4) < 1) return;
    uint16_t value = tiff_16(t, entry + 8);
    fields->orientation = (value >= 1 && value <= 8) ? (int32_t)value : 1;
}

static void exif_ifd1_entry(const tiff_reader *t, size_t entry, exif_fields *fields) {
    uint16_t tag = tiff_16(t, entry), type = tiff_16(t, entry + 2);
    if ((tag != 0x0201 && tag != 0x0202) || type != 4 || tiff_32(t, entry + 4) != 1) return;
    if (tag == 0x0201) fields->thumbnail_offset = tiff_32(t, entry + 8);
    else fields->thumbnail_length = tiff_32(t, entry + 8);
}

static exif_fields exif_read(const uint8_t *payload, size_t length) {
    static const uint8_t exif_header[6] = {'E', 'x', 'i', 'f', 0, 0};
    exif_fields fields = {1, 0, 0};
    if (length < 6 + 8 || memcmp(payload, exif_header, 6) != 0) {
        return fields;
    }
    tiff_reader t = {payload + 6, length - 6, 0};
    if (t.bytes[0] == 'I' && t.bytes[1] == 'I') {
        t.little = 1;
    } else if (t.bytes[0] != 'M' || t.bytes[1] != 'M') {
        return fields;
    }
    if (tiff_16(&t, 2) != 42) {
        return fields;
    }
    uint32_t ifd1 = tiff_walk(&t, tiff_32(&t, 4), &fields, exif_ifd0_entry);
    exif_fields thumbnail = {1, 0, 0};
    if (ifd1 != 0) tiff_walk(&t, ifd1, &thumbnail, exif_ifd1_entry);
    /* Only a thumbnail wholly inside the payload counts (offsets are from the TIFF header, 6 bytes in). */
    if (thumbnail.thumbnail_length > 0 && thumbnail.thumbnail_offset <= t.length
        && thumbnail.thumbnail_length <= t.length - thumbnail.thumbnail_offset) {
        fields.thumbnail_offset = 6 + thumbnail.thumbnail_offset;
        fields.thumbnail_length = thumbnail.thumbnail_length;
    }
    return fields;
}

static int is_sof_marker(uint8_t marker) {
    /* SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

/* The markers up to the first scan: the frame header into `info`, the Exif orientation, and (when `thumbnail` is not
 * NULL) where an Exif thumbnail lies in `data` (its offset and length; 0 0 when none). */
static int32_t jpeg_markers(const uint8_t *data, size_t size, clanes_info *info, size_t *thumbnail,
                            char *message, size_t capacity) {
    int32_t orientation = 1;
    int have_frame = 0;
    size_t pos = 2; /* after SOI */
    for (;;) {
        if (pos >= size) {
            break;
        }
        if (data[pos] != 0xFF) {
            clanes_set_message(message, capacity, "JPEG has garbage where a marker should be (offset %zu)", pos);
            return CLANES_ERR_CORRUPT;
        }
        while (pos < size && data[pos] == 0xFF) {
            pos++; /* fill bytes */
        }
        if (pos >= size) {
            break;
        }
        uint8_t marker = data[pos++];
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            continue; /* standalone markers */
        }
        if (marker == 0xD9 || marker == 0xDA || marker == 0x00) {
            /* EOI or start of scan: the header is over. */
            if (!have_frame) {
                clanes_set_message(message, capacity, "JPEG has no frame header before its first scan");
                return CLANES_ERR_CORRUPT;
            }
            break;
        }
        if (size - pos < 2) {
            break;
        }
        size_t length = clanes_be16(data + pos);
        if (length < 2) {
            clanes_set_message(message, capacity, "JPEG marker 0x%02X has an invalid length", marker);
            return CLANES_ERR_CORRUPT;
        }
        if (length > size - pos) {
            break; /* the segment is cut off: fine if the frame header was already seen */
        }
        const uint8_t *segment = data + pos + 2;
        size_t segment_length = length - 2;
        if (marker == 0xE1 && orientation == 1) {
            exif_fields exif = exif_read(segment, segment_length);
            orientation = exif.orientation;
            if (thumbnail != NULL && thumbnail[1] == 0 && exif.thumbnail_length > 0) {
                thumbnail[0] = (size_t)(segment - data) + exif.thumbnail_offset;
                thumbnail[1] = exif.thumbnail_length;
            }
        } else if (is_sof_marker(marker) && !have_frame) {
            if (segment_length < 6) {
                clanes_set_message(message, capacity, "JPEG frame header is too short");
                return CLANES_ERR_CORRUPT;
            }
            info->bit_depth = segment[0];
            info->height = clanes_be16(segment + 1);
            info->width = clanes_be16(segment + 3);
            info->components = segment[5];
            info->layout_channels = segment[5] == 1 ? 1 : 4;
            info->layout_bytes = 1;
            info->progressive = (marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE);
            if (info->width == 0) {
                clanes_set_message(message, capacity, "JPEG frame header has zero width");
                return CLANES_ERR_CORRUPT;
            }
            if (info->height == 0) {
                clanes_set_message(message, capacity, "JPEG defines its height later (DNL marker): unsupported");
                return CLANES_ERR_UNSUPPORTED;
            }
            have_frame = 1;
        }
        pos += length;
    }
    if (!have_frame) {
        clanes_set_message(message, capacity, "JPEG ends before its frame header (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    info->format = CLANES_FORMAT_JPEG;
    info->orientation = orientation;
    return CLANES_OK;
}

int32_t clanes_jpeg_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    size_t thumbnail[2] = {0, 0};
    int32_t status = jpeg_markers(data, size, info, thumbnail, message, capacity);
    if (status != CLANES_OK || thumbnail[1] < 3) return status;
    /* An Exif thumbnail counts when it is a JPEG whose own header reads (its own thumbnails are not looked for). */
    const uint8_t *bytes = data + thumbnail[0];
    clanes_info small;
    memset(&small, 0, sizeof small);
    char ignored[CLANES_MESSAGE_CAPACITY];
    if (bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF
        && jpeg_markers(bytes, thumbnail[1], &small, NULL, ignored, sizeof ignored) == CLANES_OK) {
        info->thumbnail_width = small.width;
        info->thumbnail_height = small.height;
        info->thumbnail_offset = thumbnail[0];
        info->thumbnail_length = thumbnail[1];
    }
    return CLANES_OK;
}

/* ---------- the reader the row and push parts share ---------- */

void *clanes_jpeg_reader_new(size_t size, char *message, size_t capacity) {
    clanes_jpeg_reader *reader = (clanes_jpeg_reader *)calloc(1, size);
    if (reader == NULL) {
        clanes_set_message(message, capacity, "out of memory creating the JPEG decoder");
        return NULL;
    }
    clanes_jpeg_install_errors((j_common_ptr)&reader->cinfo, &reader->error, message, capacity);
    return reader;
}

int clanes_jpeg_reader_row(clanes_jpeg_reader *reader, uint8_t *destination) {
    JSAMPROW row = reader->cmyk ? reader->cmyk_row : destination;
    if (jpeg_read_scanlines(&reader->cinfo, &row, 1) != 1) return 0;
    if (reader->cmyk) {
        clanes_cmyk_to_rgba(reader->cmyk_row, destination, reader->cinfo.output_width, reader->cinfo.saw_Adobe_marker);
    }
    return 1;
}

void clanes_jpeg_reader_end(clanes_jpeg_reader *reader) {
    if (reader->created) jpeg_destroy_decompress(&reader->cinfo);
    free(reader->cmyk_row);
}

int32_t clanes_jpeg_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                     const clanes_pixels *image, char *message, size_t capacity) {
    /* The probe reported it only when it lies wholly in the file and its own header reads; its frame header must
     * also give the size reported, or the decode below refuses it. */
    if (header->thumbnail_length == 0 || header->thumbnail_offset > size
        || header->thumbnail_length > size - header->thumbnail_offset) {
        clanes_set_message(message, capacity, "the JPEG's Exif thumbnail lies outside the file");
        return CLANES_ERR_CORRUPT;
    }
    int32_t status = clanes_jpeg_decode(data + header->thumbnail_offset, (size_t)header->thumbnail_length, 1, image,
                                        message, capacity);
    if (status == CLANES_ERR_TRUNCATED) {
        clanes_set_message(message, capacity, "the JPEG's Exif thumbnail ends early (its %llu bytes hold less)",
                           (unsigned long long)header->thumbnail_length);
    } else if (status == CLANES_ERR_ARGUMENT) {
        return CLANES_ERR_CORRUPT; /* its frame header gives another size than the one read before: it lies */
    }
    return status;
}
