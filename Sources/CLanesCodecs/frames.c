/* clanes_frames (clanes_frames.h): the format dispatch and the limits every frame decoder checks. */
#include "frames_internal.h"

#include <string.h>

static const clanes_frames_codec *frames_codec(int32_t format) {
    switch (format) {
    case CLANES_FORMAT_WEBP: return &clanes_webp_codec;
    case CLANES_FORMAT_GIF: return &clanes_gif_codec;
    case CLANES_FORMAT_AVIF: return &clanes_avif_codec;
    case CLANES_FORMAT_HEIF: return &clanes_heif_codec;
    case CLANES_FORMAT_JXL: return &clanes_jxl_codec;
    default: return NULL;
    }
}

int32_t clanes_frames_check_limits(clanes_frames *frames, const char *codec, uint64_t held) {
    uint64_t pixels = (uint64_t)frames->canvas_width * frames->canvas_height;
    if (frames->canvas_width == 0 || frames->canvas_height == 0) {
        clanes_set_message(frames->message, sizeof frames->message, "%s has an empty canvas (%ux%u)", codec,
                           frames->canvas_width, frames->canvas_height);
        return CLANES_ERR_CORRUPT;
    }
    if (pixels > frames->max_pixels) {
        clanes_set_message(frames->message, sizeof frames->message,
                           "%s of %ux%u pixels exceeds the limit of %llu pixels", codec, frames->canvas_width,
                           frames->canvas_height, (unsigned long long)frames->max_pixels);
        return CLANES_ERR_TOO_LARGE;
    }
    uint32_t count = frames->first_frame_only ? 1 : frames->frame_count;
    if (!frames->first_frame_only && frames->max_frames > 0 && frames->frame_count > frames->max_frames) {
        clanes_set_message(frames->message, sizeof frames->message, "%s has more frames than the limit of %u", codec,
                           frames->max_frames);
        return CLANES_ERR_TOO_LARGE;
    }
    uint64_t frame_bytes = (uint64_t)frames->width * frames->height * 4;
    uint64_t total = frame_bytes * count + held; /* no overflow: each factor is below 2^32, pixels below max_pixels */
    if (frame_bytes * count / (count ? count : 1) != frame_bytes || total > frames->max_bytes) {
        clanes_set_message(frames->message, sizeof frames->message,
                           "%s needs %llu bytes for %u frame%s of %ux%u, more than the limit of %llu bytes", codec,
                           (unsigned long long)total, count, count == 1 ? "" : "s", frames->width, frames->height,
                           (unsigned long long)frames->max_bytes);
        return CLANES_ERR_TOO_LARGE;
    }
    return CLANES_OK;
}

int32_t clanes_frames_open(clanes_frames *frames) {
    if (frames == NULL) {
        return CLANES_ERR_ARGUMENT;
    }
    frames->message[0] = 0;
    frames->state = NULL;
    frames->frames_read = 0;
    frames->delay_ms = 0;
    if (frames->data == NULL || frames->size == 0) {
        clanes_set_message(frames->message, sizeof frames->message, "no data to decode");
        return CLANES_ERR_ARGUMENT;
    }
    clanes_info info;
    int32_t status = clanes_probe(frames->data, frames->size, &info, frames->message, sizeof frames->message);
    if (status != CLANES_OK) {
        return status;
    }
    const clanes_frames_codec *codec = frames_codec(info.format);
    if (codec == NULL) {
        clanes_set_message(frames->message, sizeof frames->message, "not a WebP, GIF, AVIF, HEIF or JPEG XL image");
        return CLANES_ERR_UNSUPPORTED;
    }
    frames->format = info.format;
    frames->loop_count = 0;
    frames->frame_count = 1;
    return codec->open(frames);
}

int32_t clanes_frames_next(clanes_frames *frames, uint8_t *pixels, size_t bytes_per_row) {
    const clanes_frames_codec *codec = frames ? frames_codec(frames->format) : NULL;
    if (codec == NULL || frames->state == NULL) {
        if (frames) clanes_set_message(frames->message, sizeof frames->message, "the decoder is not open");
        return CLANES_ERR_ARGUMENT;
    }
    if (pixels == NULL || bytes_per_row < (size_t)frames->width * 4) {
        clanes_set_message(frames->message, sizeof frames->message, "bad frame buffer (%zu bytes per row for %u pixels)",
                           bytes_per_row, frames->width);
        return CLANES_ERR_ARGUMENT;
    }
    if (frames->frames_read >= frames->frame_count || (frames->first_frame_only && frames->frames_read > 0)) {
        clanes_set_message(frames->message, sizeof frames->message, "no frame left to read (%u read)",
                           frames->frames_read);
        return CLANES_ERR_ARGUMENT;
    }
    int32_t status = codec->next(frames, pixels, bytes_per_row);
    if (status == CLANES_OK) {
        frames->frames_read++;
    }
    return status;
}

void clanes_frames_close(clanes_frames *frames) {
    const clanes_frames_codec *codec = frames ? frames_codec(frames->format) : NULL;
    if (codec != NULL && frames->state != NULL) {
        codec->close(frames);
    }
    if (frames) frames->state = NULL;
}
