/*
 * AVIF through libavif (its AV1 decoder: dav1d or libaom, whichever Debian's libavif uses): a still image or an
 * image sequence, frame by frame, converted to RGBA8 by libavif's own YUV to RGB (the conversion avifdec makes).
 * libavif's own limits are set from the request, so it refuses a larger image before allocating its planes.
 */
#include "decoder_parts.h"

#include <avif/avif.h>
#include <stdlib.h>
#include <string.h>

struct clanes_frames_state {
    avifDecoder *decoder;
};

static int32_t avif_status(avifResult result, char *message, size_t capacity, const char *what) {
    switch (result) {
    case AVIF_RESULT_OK: return CLANES_OK;
    case AVIF_RESULT_TRUNCATED_DATA:
        clanes_set_message(message, capacity, "AVIF ends inside its %s", what);
        return CLANES_ERR_TRUNCATED;
    case AVIF_RESULT_OUT_OF_MEMORY:
        clanes_set_message(message, capacity, "out of memory decoding an AVIF %s", what);
        return CLANES_ERR_NO_MEMORY;
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_NOT_IMPLEMENTED:
        clanes_set_message(message, capacity, "AVIF %s: %s", what, avifResultToString(result));
        return CLANES_ERR_UNSUPPORTED;
    default:
        clanes_set_message(message, capacity, "AVIF %s is corrupt: %s", what, avifResultToString(result));
        return CLANES_ERR_CORRUPT;
    }
}

/* A decoder parsed on the input, with libavif's own size limit (0: its default). */
static int32_t avif_parse(const uint8_t *data, size_t size, uint64_t max_pixels, avifDecoder **out,
                          char *message, size_t capacity) {
    avifDecoder *decoder = avifDecoderCreate();
    *out = decoder;
    if (decoder == NULL) {
        clanes_set_message(message, capacity, "out of memory for an AVIF decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    decoder->maxThreads = 1;
    decoder->ignoreExif = AVIF_TRUE;
    decoder->ignoreXMP = AVIF_TRUE;
    if (max_pixels > 0) {
        decoder->imageSizeLimit = max_pixels < AVIF_DEFAULT_IMAGE_SIZE_LIMIT ? (uint32_t)max_pixels
                                                                              : AVIF_DEFAULT_IMAGE_SIZE_LIMIT;
    }
    avifResult result = avifDecoderSetIOMemory(decoder, data, size);
    if (result == AVIF_RESULT_OK) {
        result = avifDecoderParse(decoder);
    }
    /* libavif 0.11 reports data that ends inside a box (a probe's prefix of a larger file) as a BMFF failure and
     * says "truncated" only in its diagnostics: report it as truncated, so the caller reads more of the file. */
    if (result == AVIF_RESULT_BMFF_PARSE_FAILED && strstr(decoder->diag.error, "runcated") != NULL) {
        result = AVIF_RESULT_TRUNCATED_DATA;
    }
    return avif_status(result, message, capacity, "header");
}

int32_t clanes_avif_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    avifDecoder *decoder = NULL;
    int32_t status = avif_parse(data, size, 0, &decoder, message, capacity);
    if (status == CLANES_OK) {
        info->format = CLANES_FORMAT_AVIF;
        info->width = decoder->image->width;
        info->height = decoder->image->height;
        info->components = decoder->alphaPresent ? 4 : 3;
        info->bit_depth = (int32_t)decoder->image->depth;
        info->progressive = 0;
        info->layout_channels = 4;
        info->layout_bytes = 1;
        info->animated = decoder->imageCount > 1;
    }
    avifDecoderDestroy(decoder);
    return status;
}

static int32_t avif_open(clanes_frames *f) {
    f->state = (clanes_frames_state *)calloc(1, sizeof(clanes_frames_state));
    if (f->state == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for an AVIF decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    int32_t status = avif_parse(f->data, f->size, f->max_pixels, &f->state->decoder, f->message, sizeof f->message);
    if (status != CLANES_OK) {
        return status;
    }
    avifDecoder *decoder = f->state->decoder;
    f->out.canvas_width = decoder->image->width;
    f->out.canvas_height = decoder->image->height;
    f->out.width = f->out.canvas_width;
    f->out.height = f->out.canvas_height;
    f->out.frame_count = decoder->imageCount > 0 ? (uint32_t)decoder->imageCount : 1;
    f->out.loop_count = 0;
    f->out.opaque = !decoder->alphaPresent;
    /* The decoded YUV(A) planes: up to 4 planes of 16-bit samples at full resolution. */
    f->out.held_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * 8;
    return clanes_frames_check_limits(f, "AVIF", f->out.held_bytes);
}

static int32_t avif_next(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    avifDecoder *decoder = f->state->decoder;
    avifResult result = avifDecoderNextImage(decoder);
    if (result != AVIF_RESULT_OK) {
        return avif_status(result, f->message, sizeof f->message, "image data");
    }
    if (decoder->image->width != f->out.width || decoder->image->height != f->out.height) {
        clanes_set_message(f->message, sizeof f->message, "AVIF frame %u is %ux%u, not the %ux%u announced",
                           f->frames_read + 1, decoder->image->width, decoder->image->height, f->out.width, f->out.height);
        return CLANES_ERR_CORRUPT;
    }
    avifRGBImage rgb;
    memset(&rgb, 0, sizeof rgb);
    avifRGBImageSetDefaults(&rgb, decoder->image);
    rgb.format = AVIF_RGB_FORMAT_RGBA;
    rgb.depth = 8;
    rgb.pixels = pixels;
    rgb.rowBytes = (uint32_t)bytes_per_row;
    result = avifImageYUVToRGB(decoder->image, &rgb);
    if (result != AVIF_RESULT_OK) {
        return avif_status(result, f->message, sizeof f->message, "colour conversion");
    }
    f->delay_ms = (int32_t)(decoder->imageTiming.duration * 1000.0 + 0.5);
    return CLANES_OK;
}

static void avif_close(clanes_frames *f) {
    avifDecoderDestroy(f->state->decoder);
    free(f->state);
}

const clanes_frames_codec clanes_avif_codec = {avif_open, avif_next, avif_close};
