/* What the per-format frame decoders (webp.c, gif.c, avif.c, heif.c, jxl.c) share with frames.c. Not part of the public header. */
#ifndef CLANES_FRAMES_INTERNAL_H
#define CLANES_FRAMES_INTERNAL_H

#include "clanes_codecs.h"
#include "frames_context.h"
#include "codecs_internal.h"

/* One format's decoder: open fills the context's report fields, next writes one frame, close frees its state. */
typedef struct clanes_frames_codec {
    int32_t (*open)(clanes_frames *frames);
    int32_t (*next)(clanes_frames *frames, uint8_t *pixels, size_t bytes_per_row);
    void (*close)(clanes_frames *frames);
} clanes_frames_codec;

extern const clanes_frames_codec clanes_webp_codec;
extern const clanes_frames_codec clanes_gif_codec;
extern const clanes_frames_codec clanes_avif_codec;
extern const clanes_frames_codec clanes_heif_codec;
extern const clanes_frames_codec clanes_jxl_codec;

/*
 * Checks a canvas and its frames against the request's limits, before anything their size is allocated:
 * the canvas against max_pixels, the frame count against max_frames, and (frames that will be read x 4 bytes a
 * pixel + `held` bytes of the decoder's own) against max_bytes. CLANES_OK or CLANES_ERR_TOO_LARGE with a message.
 */
int32_t clanes_frames_check_limits(clanes_frames *frames, const char *codec, uint64_t held);

#endif
