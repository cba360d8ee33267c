/*
 * WebP through libwebp: a still image decodes straight into the caller's rows (scaled while decoding when asked:
 * libwebp's shrink-on-load); an animation through WebPAnimDecoder, which composites each frame on its canvas
 * (disposal and blending as the format says, transparent background, as browsers show it).
 */
#include "decoder_parts.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

struct clanes_frames_state {
    WebPAnimDecoder *animation; /* NULL for a still image */
    int previous_timestamp;
};

/* The status and message for libwebp's `code`; `cut`: the RIFF header announces more bytes than there are. */
static int32_t webp_status(VP8StatusCode code, int cut, char *message, size_t capacity, const char *what) {
    if (code == VP8_STATUS_OK) {
        return CLANES_OK;
    }
    if (code == VP8_STATUS_OUT_OF_MEMORY) {
        clanes_set_message(message, capacity, "out of memory decoding a WebP %s", what);
        return CLANES_ERR_NO_MEMORY;
    }
    if (code == VP8_STATUS_UNSUPPORTED_FEATURE) {
        clanes_set_message(message, capacity, "WebP %s uses a feature libwebp cannot decode", what);
        return CLANES_ERR_UNSUPPORTED;
    }
    if (code == VP8_STATUS_NOT_ENOUGH_DATA || cut) {
        clanes_set_message(message, capacity, "WebP ends inside its %s", what);
        return CLANES_ERR_TRUNCATED;
    }
    clanes_set_message(message, capacity, "WebP %s is corrupt (libwebp status %d)", what, (int)code);
    return CLANES_ERR_CORRUPT;
}

/* Whether the RIFF header announces more bytes than there are (a cut-off file). */
static int webp_is_cut(const uint8_t *data, size_t size) {
    return size >= 12 && (size_t)clanes_le32(data + 4) + 8 > size;
}

int32_t clanes_webp_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(data, size, &features);
    if (code != VP8_STATUS_OK) {
        return webp_status(code, webp_is_cut(data, size), message, capacity, "header");
    }
    info->format = CLANES_FORMAT_WEBP;
    info->width = (uint32_t)features.width;
    info->height = (uint32_t)features.height;
    info->components = features.has_alpha ? 4 : 3;
    info->bit_depth = 8;
    info->progressive = 0;
    info->layout_channels = 4;
    info->layout_bytes = 1;
    info->animated = features.has_animation != 0;
    return CLANES_OK;
}

static int32_t webp_open(clanes_frames *f) {
    WebPBitstreamFeatures features;
    VP8StatusCode code = WebPGetFeatures(f->data, f->size, &features);
    if (code != VP8_STATUS_OK) {
        return webp_status(code, webp_is_cut(f->data, f->size), f->message, sizeof f->message, "header");
    }
    f->state = (clanes_frames_state *)calloc(1, sizeof(clanes_frames_state));
    if (f->state == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a WebP decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    f->out.opaque = !features.has_alpha;
    if (!features.has_animation) {
        f->out.canvas_width = (uint32_t)features.width;
        f->out.canvas_height = (uint32_t)features.height;
        int scaled = f->scaled_width > 0 && f->scaled_height > 0;
        if (scaled && (f->scaled_width > f->out.canvas_width || f->scaled_height > f->out.canvas_height)) {
            clanes_set_message(f->message, sizeof f->message, "a WebP scales down only (%ux%u to %ux%u asked)",
                               f->out.canvas_width, f->out.canvas_height, f->scaled_width, f->scaled_height);
            return CLANES_ERR_ARGUMENT;
        }
        f->out.width = scaled ? f->scaled_width : f->out.canvas_width;
        f->out.height = scaled ? f->scaled_height : f->out.canvas_height;
        /* libwebp's own buffers: a lossy decode keeps a few macroblock rows of YUV, a lossless one ARGB rows. */
        f->out.held_bytes = (size_t)f->out.canvas_width * 16 * 4;
        return clanes_frames_check_limits(f, "WebP", f->out.held_bytes);
    }
    /* An animation: the demuxer reads the frame headers (small structs, bounded by the data) first. */
    WebPData whole = {f->data, f->size};
    WebPDemuxState demux_state;
    WebPDemuxer *demux = WebPDemuxPartial(&whole, &demux_state);
    if (demux == NULL || demux_state != WEBP_DEMUX_DONE) {
        int cut = demux != NULL || webp_is_cut(f->data, f->size);
        WebPDemuxDelete(demux);
        clanes_set_message(f->message, sizeof f->message, cut ? "animated WebP ends inside its frames"
                                                               : "animated WebP has malformed chunks");
        return cut ? CLANES_ERR_TRUNCATED : CLANES_ERR_CORRUPT;
    }
    f->out.canvas_width = WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH);
    f->out.canvas_height = WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT);
    f->out.frame_count = WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT);
    f->out.loop_count = (int32_t)WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT);
    WebPDemuxDelete(demux);
    f->out.width = f->out.canvas_width;
    f->out.height = f->out.canvas_height;
    if (f->out.frame_count == 0) {
        clanes_set_message(f->message, sizeof f->message, "animated WebP has no frames");
        return CLANES_ERR_CORRUPT;
    }
    /* WebPAnimDecoder keeps the current and the previous canvas, and decodes each frame through a third. */
    f->out.held_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * 4 * 3;
    int32_t status = clanes_frames_check_limits(f, "animated WebP", f->out.held_bytes);
    if (status != CLANES_OK) {
        return status;
    }
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) {
        clanes_set_message(f->message, sizeof f->message, "libwebp's animation decoder has another version");
        return CLANES_ERR_UNSUPPORTED;
    }
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    f->state->animation = WebPAnimDecoderNew(&whole, &options);
    if (f->state->animation == NULL) {
        clanes_set_message(f->message, sizeof f->message, "animated WebP could not be opened (malformed frames)");
        return CLANES_ERR_CORRUPT;
    }
    return CLANES_OK;
}

static int32_t webp_next_still(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        clanes_set_message(f->message, sizeof f->message, "libwebp's decoder has another version");
        return CLANES_ERR_UNSUPPORTED;
    }
    if (f->out.width != f->out.canvas_width || f->out.height != f->out.canvas_height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)f->out.width;
        config.options.scaled_height = (int)f->out.height;
    }
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)bytes_per_row;
    config.output.u.RGBA.size = bytes_per_row * (f->out.height - 1) + (size_t)f->out.width * 4;
    VP8StatusCode code = WebPDecode(f->data, f->size, &config);
    WebPFreeDecBuffer(&config.output);
    f->delay_ms = 0;
    return webp_status(code, webp_is_cut(f->data, f->size), f->message, sizeof f->message, "image data");
}

static int32_t webp_next(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    if (f->state->animation == NULL) {
        return webp_next_still(f, pixels, bytes_per_row);
    }
    uint8_t *canvas = NULL;
    int timestamp = 0;
    if (!WebPAnimDecoderGetNext(f->state->animation, &canvas, &timestamp) || canvas == NULL) {
        clanes_set_message(f->message, sizeof f->message, "animated WebP frame %u is corrupt", f->frames_read + 1);
        return CLANES_ERR_CORRUPT;
    }
    size_t row_bytes = (size_t)f->out.width * 4;
    for (uint32_t y = 0; y < f->out.height; y++) {
        memcpy(pixels + (size_t)y * bytes_per_row, canvas + (size_t)y * row_bytes, row_bytes);
    }
    /* The decoder reports when each frame ends: its delay is the difference. */
    f->delay_ms = timestamp - f->state->previous_timestamp;
    f->state->previous_timestamp = timestamp;
    return CLANES_OK;
}

static void webp_close(clanes_frames *f) {
    WebPAnimDecoderDelete(f->state->animation);
    free(f->state);
}

const clanes_frames_codec clanes_webp_codec = {webp_open, webp_next, webp_close};
