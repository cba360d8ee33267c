/*
 * HEIF/HEIC through libheif (Debian's 1.15, with libde265 for HEVC): the primary image, decoded whole and converted
 * to RGBA8 by libheif (heif-convert's conversion). libheif applies the container's transformations (irot rotation,
 * imir mirroring, clap crop), so the size reported is the upright one and the orientation is always 1; an Exif
 * orientation tag inside a HEIC is ignored, as the HEIF standard says (libvips does the same). libheif 1.15 decodes
 * a grid image's tiles into one image: it has no call to decode a tile at a time, so a HEIF is decoded whole and the
 * limits count that whole image, the HEVC planes and the RGBA copy libheif makes, before anything is decoded.
 */
#include "decoder_parts.h"

#include <libheif/heif.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct clanes_frames_state {
    struct heif_context *context;
    struct heif_image_handle *handle;
};

/* The longest side libheif accepts (its own check on every image's ispe, before decoding). */
#define HEIF_MAX_SIDE 65535

static pthread_once_t heif_started = PTHREAD_ONCE_INIT;

/* heif_init is reference counted and registers the decoder plugins; one reference for the process's lifetime. */
static void heif_start(void) {
    (void)heif_init(NULL);
}

static int32_t heif_status(struct heif_error error, char *message, size_t capacity, const char *what) {
    if (error.code == heif_error_Ok) {
        return CLANES_OK;
    }
    const char *reason = error.message != NULL ? error.message : "unknown error";
    if (error.subcode == heif_suberror_End_of_data) {
        clanes_set_message(message, capacity, "HEIF ends inside its %s", what);
        return CLANES_ERR_TRUNCATED;
    }
    if (error.subcode == heif_suberror_Security_limit_exceeded) {
        clanes_set_message(message, capacity, "HEIF %s exceeds libheif's limits: %s", what, reason);
        return CLANES_ERR_TOO_LARGE;
    }
    switch (error.code) {
    case heif_error_Memory_allocation_error:
        clanes_set_message(message, capacity, "out of memory decoding a HEIF %s", what);
        return CLANES_ERR_NO_MEMORY;
    case heif_error_Unsupported_feature:
    case heif_error_Unsupported_filetype:
        clanes_set_message(message, capacity, "HEIF %s: %s", what, reason);
        return CLANES_ERR_UNSUPPORTED;
    default:
        clanes_set_message(message, capacity, "HEIF %s is corrupt: %s", what, reason);
        return CLANES_ERR_CORRUPT;
    }
}

/*
 * Whether the top-level boxes fit in the data, up to a whole `meta` box. libheif reports data that ends inside or
 * before the `meta` box as a file with no `meta` box (corrupt), so a prefix of a file (a download, the head of a large
 * file) is recognised here first and reported as truncated: the caller reads more. (A whole file with no `meta` box
 * is reported as truncated too: nothing tells the two apart.)
 */
static int32_t heif_check_boxes(const uint8_t *data, size_t size, char *message, size_t capacity) {
    size_t offset = 0;
    int seen_meta = 0;
    while (size - offset >= 8) {
        uint64_t length = clanes_be32(data + offset);
        size_t header = 8;
        if (length == 1) {
            if (size - offset < 16) return CLANES_OK;
            length = ((uint64_t)clanes_be32(data + offset + 8) << 32) | clanes_be32(data + offset + 12);
            header = 16;
        } else if (length == 0) {
            return CLANES_OK; /* the last box, to the end of the file: libheif judges it */
        }
        if (length < header) {
            clanes_set_message(message, capacity, "HEIF box at offset %zu has an invalid size (%llu)", offset,
                               (unsigned long long)length);
            return CLANES_ERR_CORRUPT;
        }
        if (length > size - offset) {
            clanes_set_message(message, capacity, "HEIF ends inside the box at offset %zu (%zu of its %llu bytes)",
                               offset, size - offset, (unsigned long long)length);
            return CLANES_ERR_TRUNCATED;
        }
        seen_meta = seen_meta || memcmp(data + offset + 4, "meta", 4) == 0;
        offset += (size_t)length;
    }
    if (!seen_meta) {
        clanes_set_message(message, capacity, "HEIF ends before its 'meta' box (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    return CLANES_OK; /* a few bytes left over: libheif judges them (a cut box header ends in its iloc check) */
}

/* A context parsed on the input and its primary image's handle (both released by heif_release). */
static int32_t heif_parse(const uint8_t *data, size_t size, struct heif_context **context,
                          struct heif_image_handle **handle, char *message, size_t capacity) {
    *handle = NULL;
    *context = NULL;
    int32_t checked = heif_check_boxes(data, size, message, capacity);
    if (checked != CLANES_OK) {
        return checked;
    }
    pthread_once(&heif_started, heif_start);
    *context = heif_context_alloc();
    if (*context == NULL) {
        clanes_set_message(message, capacity, "out of memory for a HEIF decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    heif_context_set_maximum_image_size_limit(*context, HEIF_MAX_SIDE);
    heif_context_set_max_decoding_threads(*context, 0); /* tiles on the calling thread: Lanes schedules the work */
    int32_t status = heif_status(heif_context_read_from_memory_without_copy(*context, data, size, NULL), message,
                                 capacity, "header");
    if (status == CLANES_OK) {
        status = heif_status(heif_context_get_primary_image_handle(*context, handle), message, capacity, "header");
    }
    if (status == CLANES_OK
        && (heif_image_handle_get_width(*handle) <= 0 || heif_image_handle_get_height(*handle) <= 0)) {
        clanes_set_message(message, capacity, "HEIF has an empty primary image (%dx%d)",
                           heif_image_handle_get_width(*handle), heif_image_handle_get_height(*handle));
        status = CLANES_ERR_CORRUPT;
    }
    return status;
}

static void heif_release(struct heif_context *context, struct heif_image_handle *handle) {
    if (handle != NULL) heif_image_handle_release(handle);
    if (context != NULL) heif_context_free(context);
}

/* The size of the primary image's first thumbnail (0x0 when it has none). */
static void heif_thumbnail(const struct heif_image_handle *handle, clanes_info *info) {
    heif_item_id id;
    struct heif_image_handle *thumbnail = NULL;
    if (heif_image_handle_get_number_of_thumbnails(handle) < 1
        || heif_image_handle_get_list_of_thumbnail_IDs(handle, &id, 1) != 1
        || heif_image_handle_get_thumbnail(handle, id, &thumbnail).code != heif_error_Ok) {
        return;
    }
    int width = heif_image_handle_get_width(thumbnail), height = heif_image_handle_get_height(thumbnail);
    if (width > 0 && height > 0) {
        info->thumbnail_width = (uint32_t)width;
        info->thumbnail_height = (uint32_t)height;
    }
    heif_image_handle_release(thumbnail);
}

int32_t clanes_heif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    struct heif_context *context = NULL;
    struct heif_image_handle *handle = NULL;
    int32_t status = heif_parse(data, size, &context, &handle, message, capacity);
    if (status == CLANES_OK) {
        int depth = heif_image_handle_get_luma_bits_per_pixel(handle);
        info->format = CLANES_FORMAT_HEIF;
        info->width = (uint32_t)heif_image_handle_get_width(handle);
        info->height = (uint32_t)heif_image_handle_get_height(handle);
        info->orientation = 1; /* irot/imir are applied by libheif: the size above is already upright */
        info->components = heif_image_handle_has_alpha_channel(handle) ? 4 : 3;
        info->bit_depth = depth > 0 ? depth : 8;
        info->layout_channels = 4;
        info->layout_bytes = 1;
        heif_thumbnail(handle, info);
    }
    heif_release(context, handle);
    return status;
}

static int32_t heif_open(clanes_frames *f) {
    f->state = (clanes_frames_state *)calloc(1, sizeof(clanes_frames_state));
    if (f->state == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a HEIF decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    int32_t status = heif_parse(f->data, f->size, &f->state->context, &f->state->handle, f->message,
                                sizeof f->message);
    if (status != CLANES_OK) {
        return status;
    }
    f->out.canvas_width = (uint32_t)heif_image_handle_get_width(f->state->handle);
    f->out.canvas_height = (uint32_t)heif_image_handle_get_height(f->state->handle);
    f->out.width = f->out.canvas_width;
    f->out.height = f->out.canvas_height;
    f->out.frame_count = 1;
    f->out.opaque = !heif_image_handle_has_alpha_channel(f->state->handle);
    /* libheif's own buffers at their peak: the decoded planes (YCbCr and alpha, up to 16 bits at 4:4:4: 8 bytes a
     * pixel) and the RGB(A)8 image it converts them to (at most 4), copied into the caller's frame afterwards. */
    f->out.held_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * 12;
    return clanes_frames_check_limits(f, "HEIF", f->out.held_bytes);
}

/* Decodes `handle` (the primary image or a thumbnail) into `pixels`, RGBA8 of width x height (its upright size). */
static int32_t heif_decode_handle(struct heif_image_handle *handle, int opaque, uint8_t *pixels, size_t bytes_per_row,
                                  uint32_t width, uint32_t height, const char *what, char *message, size_t capacity) {
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    if (options == NULL) {
        clanes_set_message(message, capacity, "out of memory for HEIF decoding options");
        return CLANES_ERR_NO_MEMORY;
    }
    options->convert_hdr_to_8bit = 1;
    /* Damaged HEVC data is an error, not a picture: without this, libheif hands out what libde265 managed to decode,
     * and the parts it could not are whatever was in memory (the fuzzer found two decodes of one file differing). */
    options->strict_decoding = 1;
    /* An opaque image is converted to RGB (3 bytes a pixel, as libvips asks for it) and widened while it is copied. */
    struct heif_image *image = NULL;
    struct heif_error error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                                opaque ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RGBA,
                                                options);
    heif_decoding_options_free(options);
    int32_t status = heif_status(error, message, capacity, what);
    if (status != CLANES_OK) {
        if (image != NULL) heif_image_release(image);
        return status;
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int decoded_width = heif_image_get_width(image, heif_channel_interleaved);
    int decoded_height = heif_image_get_height(image, heif_channel_interleaved);
    int channels = opaque ? 3 : 4;
    if (plane == NULL || decoded_width != (int)width || decoded_height != (int)height
        || stride < decoded_width * channels) {
        clanes_set_message(message, capacity, "HEIF %s decodes to %dx%d, not the %ux%u its header says", what,
                           decoded_width, decoded_height, width, height);
        heif_image_release(image);
        return CLANES_ERR_CORRUPT;
    }
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + (size_t)y * bytes_per_row;
        const uint8_t *source = plane + (size_t)y * (size_t)stride;
        if (!opaque) {
            memcpy(row, source, (size_t)width * 4);
            continue;
        }
        for (uint32_t x = 0; x < width; x++, row += 4, source += 3) {
            row[0] = source[0];
            row[1] = source[1];
            row[2] = source[2];
            row[3] = 255;
        }
    }
    heif_image_release(image);
    return CLANES_OK;
}

static int32_t heif_next(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    int32_t status = heif_decode_handle(f->state->handle, f->out.opaque, pixels, bytes_per_row, f->out.width,
                                        f->out.height, "image data", f->message, sizeof f->message);
    f->delay_ms = 0;
    return status;
}

int32_t clanes_heif_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                     const clanes_pixels *image, char *message, size_t capacity) {
    (void)header; /* the size to decode is the image's, which the caller checked against the header */
    struct heif_context *context = NULL;
    struct heif_image_handle *handle = NULL, *thumbnail = NULL;
    heif_item_id id;
    int32_t status = heif_parse(data, size, &context, &handle, message, capacity);
    if (status == CLANES_OK
        && (heif_image_handle_get_number_of_thumbnails(handle) < 1
            || heif_image_handle_get_list_of_thumbnail_IDs(handle, &id, 1) != 1)) {
        clanes_set_message(message, capacity, "the HEIF has no thumbnail item");
        status = CLANES_ERR_CORRUPT;
    }
    if (status == CLANES_OK) {
        status = heif_status(heif_image_handle_get_thumbnail(handle, id, &thumbnail), message, capacity, "thumbnail");
    }
    if (status == CLANES_OK) {
        status = heif_decode_handle(thumbnail, !heif_image_handle_has_alpha_channel(thumbnail), image->pixels,
                                    image->bytes_per_row, image->width, image->height, "thumbnail", message,
                                    capacity);
    }
    if (thumbnail != NULL) heif_image_handle_release(thumbnail);
    heif_release(context, handle);
    return status;
}

static void heif_close(clanes_frames *f) {
    heif_release(f->state->context, f->state->handle);
    free(f->state);
}

const clanes_frames_codec clanes_heif_codec = {heif_open, heif_next, heif_close};
