/* clanes_frames (frames_context.h): the calls every frame format's part answers, and the limits each checks. The
 * decoder context (decoder.c) picks the part and sets frames->codec and frames->format. */
#include "frames_internal.h"

#include <string.h>

int32_t clanes_frames_check_limits(clanes_frames *frames, const char *codec, uint64_t held) {
    uint64_t pixels = (uint64_t)frames->out.canvas_width * frames->out.canvas_height;
    if (frames->out.canvas_width == 0 || frames->out.canvas_height == 0) {
        clanes_set_message(frames->message, sizeof frames->message, "%s has an empty canvas (%ux%u)", codec,
                           frames->out.canvas_width, frames->out.canvas_height);
        return CLANES_ERR_CORRUPT;
    }
    if (pixels > frames->max_pixels) {
        clanes_set_message(frames->message, sizeof frames->message,
                           "%s of %ux%u pixels exceeds the limit of %llu pixels", codec, frames->out.canvas_width,
                           frames->out.canvas_height, (unsigned long long)frames->max_pixels);
        return CLANES_ERR_TOO_LARGE;
    }
    uint32_t count = frames->first_frame_only ? 1 : frames->out.frame_count;
    if (!frames->first_frame_only && frames->max_frames > 0 && frames->out.frame_count > frames->max_frames) {
        clanes_set_message(frames->message, sizeof frames->message, "%s has more frames than the limit of %u", codec,
                           frames->max_frames);
        return CLANES_ERR_TOO_LARGE;
    }
    uint64_t frame_bytes = (uint64_t)frames->out.width * frames->out.height * 4;
    uint64_t total = frame_bytes * count + held; /* no overflow: each factor is below 2^32, pixels below max_pixels */
    if (frame_bytes * count / (count ? count : 1) != frame_bytes || total > frames->max_bytes) {
        clanes_set_message(frames->message, sizeof frames->message,
                           "%s needs %llu bytes for %u frame%s of %ux%u, more than the limit of %llu bytes", codec,
                           (unsigned long long)total, count, count == 1 ? "" : "s", frames->out.width, frames->out.height,
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
    if (frames->codec == NULL) {
        clanes_set_message(frames->message, sizeof frames->message, "not a WebP, GIF, AVIF, HEIF or JPEG XL image");
        return CLANES_ERR_UNSUPPORTED;
    }
    frames->out.loop_count = 0;
    frames->out.frame_count = 1;
    return frames->codec->open(frames);
}

int32_t clanes_frames_next(clanes_frames *frames, uint8_t *pixels, size_t bytes_per_row) {
    const clanes_frames_codec *codec = frames ? frames->codec : NULL;
    if (codec == NULL || frames->state == NULL) {
        if (frames) clanes_set_message(frames->message, sizeof frames->message, "the decoder is not open");
        return CLANES_ERR_ARGUMENT;
    }
    if (pixels == NULL || bytes_per_row < (size_t)frames->out.width * 4) {
        clanes_set_message(frames->message, sizeof frames->message, "bad frame buffer (%zu bytes per row for %u pixels)",
                           bytes_per_row, frames->out.width);
        return CLANES_ERR_ARGUMENT;
    }
    if (frames->frames_read >= frames->out.frame_count || (frames->first_frame_only && frames->frames_read > 0)) {
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
    const clanes_frames_codec *codec = frames ? frames->codec : NULL;
    if (codec != NULL && frames->state != NULL) {
        codec->close(frames);
    }
    if (frames) frames->state = NULL;
}
