/*
 * JPEG XL through libjxl (Debian's 0.7): a still image or an animation, frame by frame (coalesced: each frame is the
 * whole canvas as it is shown), as RGBA8 in the image's display colours (djxl's conversion; no colour management
 * beyond libjxl's own). libjxl applies the orientation of the file's header, so the size reported is the upright one
 * and the orientation is always 1. No parallel runner: libjxl decodes on the calling thread, as every codec here.
 * The header says the size before anything is decoded; an animation's frames are counted by walking their headers
 * (libjxl skips the pixel data of frames nobody asked the pixels of) with a second decoder, stopping past the limit.
 */
#include "decoder_parts.h"

#include <jxl/decode.h>
#include <stdlib.h>
#include <string.h>

struct clanes_frames_state {
    JxlDecoder *decoder;
    uint32_t ticks_numerator;   /* ticks per second */
    uint32_t ticks_denominator;
};

/* A decoder on the whole input, subscribed to `events`. The input is left open: libjxl then answers "need more input"
 * at the end of a cut file (reported as truncated) instead of failing with a line on stderr (Debian's libjxl prints
 * its internal failures). */
static JxlDecoder *jxl_decoder(const uint8_t *data, size_t size, int events) {
    JxlDecoder *decoder = JxlDecoderCreate(NULL);
    if (decoder == NULL) return NULL;
    if (JxlDecoderSubscribeEvents(decoder, events) != JXL_DEC_SUCCESS
        || JxlDecoderSetInput(decoder, data, size) != JXL_DEC_SUCCESS) {
        JxlDecoderDestroy(decoder);
        return NULL;
    }
    return decoder;
}

/* The status for what JxlDecoderProcessInput returned when the caller expected something else. */
static int32_t jxl_failure(JxlDecoderStatus status, char *message, size_t capacity, const char *what) {
    if (status == JXL_DEC_NEED_MORE_INPUT) {
        clanes_set_message(message, capacity, "JPEG XL ends inside its %s", what);
        return CLANES_ERR_TRUNCATED;
    }
    if (status == JXL_DEC_ERROR) {
        clanes_set_message(message, capacity, "JPEG XL %s is corrupt (libjxl refused it)", what);
        return CLANES_ERR_CORRUPT;
    }
    clanes_set_message(message, capacity, "JPEG XL %s: unexpected decoder event 0x%x", what, (unsigned)status);
    return CLANES_ERR_CORRUPT;
}

/* Runs `decoder` to its basic info (the image header). */
static int32_t jxl_basic_info(JxlDecoder *decoder, JxlBasicInfo *info, char *message, size_t capacity) {
    JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
    if (status != JXL_DEC_BASIC_INFO) {
        return jxl_failure(status, message, capacity, "header");
    }
    if (JxlDecoderGetBasicInfo(decoder, info) != JXL_DEC_SUCCESS) {
        clanes_set_message(message, capacity, "JPEG XL header is corrupt");
        return CLANES_ERR_CORRUPT;
    }
    if (info->xsize == 0 || info->ysize == 0) {
        clanes_set_message(message, capacity, "JPEG XL has an empty image (%ux%u)", info->xsize, info->ysize);
        return CLANES_ERR_CORRUPT;
    }
    return CLANES_OK;
}

/* The upright size: orientations 5-8 transpose the stored image. */
static void jxl_upright_size(const JxlBasicInfo *info, uint32_t *width, uint32_t *height) {
    int transposed = info->orientation >= JXL_ORIENT_TRANSPOSE;
    *width = transposed ? info->ysize : info->xsize;
    *height = transposed ? info->xsize : info->ysize;
}

int32_t clanes_jxl_probe(const uint8_t *data, size_t size, clanes_info *info, char *message, size_t capacity) {
    JxlDecoder *decoder = jxl_decoder(data, size, JXL_DEC_BASIC_INFO);
    if (decoder == NULL) {
        clanes_set_message(message, capacity, "out of memory for a JPEG XL decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    JxlBasicInfo basic;
    int32_t status = jxl_basic_info(decoder, &basic, message, capacity);
    JxlDecoderDestroy(decoder);
    if (status != CLANES_OK) {
        return status;
    }
    info->format = CLANES_FORMAT_JXL;
    jxl_upright_size(&basic, &info->width, &info->height);
    info->orientation = 1; /* applied by libjxl */
    info->components = (int32_t)basic.num_color_channels + (basic.alpha_bits > 0 ? 1 : 0);
    info->bit_depth = (int32_t)basic.bits_per_sample;
    info->layout_channels = 4;
    info->layout_bytes = 1;
    info->animated = basic.have_animation ? 1 : 0;
    if (basic.have_preview) {
        /* The preview frame is stored in the file's orientation, as the image is. */
        int transposed = basic.orientation >= JXL_ORIENT_TRANSPOSE;
        info->thumbnail_width = transposed ? basic.preview.ysize : basic.preview.xsize;
        info->thumbnail_height = transposed ? basic.preview.xsize : basic.preview.ysize;
    }
    return CLANES_OK;
}

/* Counts an animation's shown frames from their headers, stopping once past `limit` (0: no limit). */
static int32_t jxl_count_frames(const clanes_frames *f, uint32_t limit, uint32_t *count, char *message,
                                size_t capacity) {
    JxlDecoder *decoder = jxl_decoder(f->data, f->size, JXL_DEC_FRAME);
    if (decoder == NULL) {
        clanes_set_message(message, capacity, "out of memory for a JPEG XL decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    *count = 0;
    int32_t result = CLANES_OK;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_SUCCESS) break;
        if (status != JXL_DEC_FRAME) {
            result = jxl_failure(status, message, capacity, "frame headers");
            break;
        }
        (*count)++;
        if (limit > 0 && *count > limit) break;
    }
    JxlDecoderDestroy(decoder);
    return result;
}

static int32_t jxl_open(clanes_frames *f) {
    f->state = (clanes_frames_state *)calloc(1, sizeof(clanes_frames_state));
    if (f->state == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a JPEG XL decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    f->state->decoder = jxl_decoder(f->data, f->size, JXL_DEC_BASIC_INFO | JXL_DEC_FRAME | JXL_DEC_FULL_IMAGE);
    if (f->state->decoder == NULL) {
        clanes_set_message(f->message, sizeof f->message, "out of memory for a JPEG XL decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    JxlBasicInfo basic;
    int32_t status = jxl_basic_info(f->state->decoder, &basic, f->message, sizeof f->message);
    if (status != CLANES_OK) {
        return status;
    }
    jxl_upright_size(&basic, &f->out.canvas_width, &f->out.canvas_height);
    f->out.width = f->out.canvas_width;
    f->out.height = f->out.canvas_height;
    f->out.opaque = basic.alpha_bits == 0;
    f->out.frame_count = 1;
    f->out.loop_count = 0;
    if (basic.have_animation) {
        f->state->ticks_numerator = basic.animation.tps_numerator;
        f->state->ticks_denominator = basic.animation.tps_denominator;
        f->out.loop_count = (int32_t)(basic.animation.num_loops > INT32_MAX ? 0 : basic.animation.num_loops);
        /* The canvas first: a bomb's size fails here, before its frames are walked. */
        status = clanes_frames_check_limits(f, "JPEG XL", 0);
        if (status == CLANES_OK && !f->first_frame_only) {
            uint32_t count = 0;
            status = jxl_count_frames(f, f->max_frames, &count, f->message, sizeof f->message);
            f->out.frame_count = count > 0 ? count : 1;
        }
        if (status != CLANES_OK) {
            return status;
        }
    }
    /* libjxl's own buffers at their peak: the frame being decoded as 32-bit floats (3 colour channels and alpha:
     * 16 bytes a pixel), and the previous frame it blends an animation's next one onto (16 more). */
    f->out.held_bytes = (size_t)f->out.canvas_width * f->out.canvas_height * (basic.have_animation ? 32 : 16);
    return clanes_frames_check_limits(f, "JPEG XL", f->out.held_bytes);
}

static int32_t jxl_next(clanes_frames *f, uint8_t *pixels, size_t bytes_per_row) {
    JxlDecoder *decoder = f->state->decoder;
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, bytes_per_row};
    f->delay_ms = 0;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(decoder);
        if (status == JXL_DEC_FRAME) {
            JxlFrameHeader header;
            if (f->state->ticks_numerator > 0 && JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS) {
                uint64_t ms = (uint64_t)header.duration * 1000u * f->state->ticks_denominator;
                ms = (ms + f->state->ticks_numerator / 2) / f->state->ticks_numerator;
                f->delay_ms = ms > INT32_MAX ? INT32_MAX : (int32_t)ms;
            }
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            /* `align` = the row length: libjxl rounds each row up to a multiple of it, so rows are that far apart. */
            size_t needed = 0;
            if (JxlDecoderImageOutBufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS
                || needed > bytes_per_row * f->out.height
                || JxlDecoderSetImageOutBuffer(decoder, &format, pixels, bytes_per_row * f->out.height)
                       != JXL_DEC_SUCCESS) {
                clanes_set_message(f->message, sizeof f->message, "JPEG XL frame %u does not fit its %ux%u canvas",
                                   f->frames_read + 1, f->out.width, f->out.height);
                return CLANES_ERR_CORRUPT;
            }
        } else if (status == JXL_DEC_FULL_IMAGE) {
            return CLANES_OK;
        } else if (status == JXL_DEC_SUCCESS) {
            clanes_set_message(f->message, sizeof f->message, "JPEG XL has no frame %u", f->frames_read + 1);
            return CLANES_ERR_CORRUPT;
        } else {
            return jxl_failure(status, f->message, sizeof f->message, "image data");
        }
    }
}

static void jxl_close(clanes_frames *f) {
    if (f->state->decoder != NULL) JxlDecoderDestroy(f->state->decoder);
    free(f->state);
}

int32_t clanes_jxl_decode_thumbnail(const uint8_t *data, size_t size, const clanes_info *header,
                                    const clanes_pixels *image, char *message, size_t capacity) {
    (void)header; /* the caller checked `image` against the header's preview size */
    JxlDecoder *decoder = jxl_decoder(data, size, JXL_DEC_BASIC_INFO | JXL_DEC_PREVIEW_IMAGE);
    if (decoder == NULL) {
        clanes_set_message(message, capacity, "out of memory for a JPEG XL decoder");
        return CLANES_ERR_NO_MEMORY;
    }
    JxlBasicInfo basic;
    int32_t status = jxl_basic_info(decoder, &basic, message, capacity);
    size_t bytes = image->bytes_per_row * image->height;
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, image->bytes_per_row};
    while (status == CLANES_OK) {
        JxlDecoderStatus event = JxlDecoderProcessInput(decoder);
        if (event == JXL_DEC_NEED_PREVIEW_OUT_BUFFER) {
            /* libjxl sizes the buffer from the preview header, oriented as the image is: it must be the one reported. */
            size_t needed = 0;
            if (JxlDecoderPreviewOutBufferSize(decoder, &format, &needed) != JXL_DEC_SUCCESS || needed > bytes
                || needed < (size_t)image->bytes_per_row * (image->height - 1) + (size_t)image->width * 4
                || JxlDecoderSetPreviewOutBuffer(decoder, &format, image->pixels, bytes) != JXL_DEC_SUCCESS) {
                clanes_set_message(message, capacity, "JPEG XL preview frame is not the %ux%u its header says",
                                   image->width, image->height);
                status = CLANES_ERR_CORRUPT;
            }
        } else if (event == JXL_DEC_PREVIEW_IMAGE) {
            break;
        } else if (event == JXL_DEC_SUCCESS) {
            clanes_set_message(message, capacity, "JPEG XL has no preview frame");
            status = CLANES_ERR_CORRUPT;
        } else {
            status = jxl_failure(event, message, capacity, "preview frame");
        }
    }
    JxlDecoderDestroy(decoder);
    return status;
}

const clanes_frames_codec clanes_jxl_codec = {jxl_open, jxl_next, jxl_close};
