/*
 * frames_context.h — the frame formats' context (behind clanes_decoder_start_frames): WebP (libwebp, libwebpdemux), GIF (giflib), AVIF (libavif), HEIF (libheif) and JPEG XL (libjxl)
 * decoding, one frame at a time.
 *
 * One context struct carries a decode: the caller fills the request fields, clanes_frames_open reads the
 * header (and, for an animation, walks every frame's header without decoding pixels) and checks the limits
 * before anything the size of an image is allocated; clanes_frames_next then writes each frame, composited
 * onto the canvas the way browsers show it, as RGBA8 into a caller-provided buffer. Every error path stays in
 * C: each call returns CLANES_OK or CLANES_ERR_* and leaves one line in `message`.
 *
 *     clanes_frames frames = {0};
 *     frames.codec = &clanes_gif_codec; frames.format = CLANES_FORMAT_GIF;
 *     frames.data = bytes; frames.size = size; frames.max_pixels = 100000000; frames.max_bytes = 1 << 30;
 *     if (clanes_frames_open(&frames) == CLANES_OK)
 *         while (frames.frames_read < frames.out.frame_count && clanes_frames_next(&frames, pixels, stride) == CLANES_OK)
 *             use(pixels, frames.delay_ms);
 *     clanes_frames_close(&frames);
 */
#ifndef CLANES_FRAMES_H
#define CLANES_FRAMES_H

#include "clanes_decoder.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clanes_frames_state clanes_frames_state;
struct clanes_frames_codec;

typedef struct clanes_frames {
    /* ---- the request (set before clanes_frames_open) ---- */
    const uint8_t *data;        /* the whole encoded file; must outlive the context */
    size_t size;
    uint64_t max_pixels;        /* the canvas may hold at most this many pixels */
    uint64_t max_bytes;         /* the frames decoded (4 bytes a pixel each) plus the decoder's canvases, at most */
    uint32_t max_frames;        /* at most this many frames (0: no limit besides max_bytes) */
    int32_t first_frame_only;   /* 1: only the first frame will be read (the limits count one frame) */
    uint32_t scaled_width;      /* a still WebP: decode straight to this size (libwebp's scaling); the first frame
                                   of an opaque GIF: shrink by the largest whole factor keeping at least this size
                                   (width/height say what comes out); 0: stored size */
    uint32_t scaled_height;

    /* ---- what clanes_frames_open reports (clanes_decoder.h) ---- */
    clanes_frames_report out;
    int32_t format;             /* CLANES_FORMAT_WEBP, _GIF, _AVIF, _HEIF or _JXL (set with `codec`) */

    /* ---- after each clanes_frames_next ---- */
    uint32_t frames_read;
    int32_t delay_ms;           /* how long the frame just read is shown (as the file says: GIF's 0 stays 0) */

    char message[256];          /* one line on failure (CLANES_MESSAGE_CAPACITY) */
    clanes_frames_state *state; /* private */
    const struct clanes_frames_codec *codec; /* the format's part (set before clanes_frames_open) */
} clanes_frames;

/* Reads the header and checks the limits; on failure the context only accepts clanes_frames_close. */
int32_t clanes_frames_open(clanes_frames *frames);

/* Writes the next frame as RGBA8 rows of `width` pixels, `bytes_per_row` apart, and sets delay_ms. */
int32_t clanes_frames_next(clanes_frames *frames, uint8_t *pixels, size_t bytes_per_row);

/* Frees what the context holds (any state; safe to call twice and after a failed open). */
void clanes_frames_close(clanes_frames *frames);

#ifdef __cplusplus
}
#endif

#endif /* CLANES_FRAMES_H */
