/* WebP output through libwebp's advanced API: lossy (VP8, with alpha when asked) or lossless (VP8L), one part of the
 * one encoder (encoder_internal.h): the canvas is gathered by canvas_encoder.c, the file goes out as libwebp writes it. */
#include "encoder_internal.h"

#include <webp/encode.h>

/* libwebp's writer callback: hands the bytes to the encoder's output (memory or the descriptor) as they are made. */
static int clanes_webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
    return clanes_encoder_emit((clanes_encoder *)picture->custom_ptr, data, size);
}

static const char *clanes_webp_error(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimensions";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition overflowed (try a lower quality)";
    case VP8_ENC_ERROR_BAD_WRITE: return "the output could not be written";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would exceed 4 GiB";
    default: return "libwebp failed";
    }
}

static int32_t clanes_webp_check(const clanes_encode_options *options, char *message, size_t capacity) {
    return clanes_canvas_check(options, "WebP", 6, message, capacity);
}

static int32_t clanes_webp_end(clanes_encoder *e) {
    const clanes_encode_options *options = &e->options;
    char *message = e->message;
    size_t capacity = e->capacity;
    WebPConfig config;
    if (!WebPConfigInit(&config)) {
        clanes_set_message(message, capacity, "libwebp's version does not match its header");
        return CLANES_ERR_ENCODE;
    }
    config.quality = (float)options->quality;
    config.method = options->effort;
    config.lossless = options->lossless ? 1 : 0;
    config.exact = 0;
    if (!WebPValidateConfig(&config)) {
        clanes_set_message(message, capacity, "libwebp refused quality %d, effort %d", options->quality,
                           options->effort);
        return CLANES_ERR_ARGUMENT;
    }
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) {
        clanes_set_message(message, capacity, "libwebp's version does not match its header");
        return CLANES_ERR_ENCODE;
    }
    picture.use_argb = options->lossless ? 1 : 0;
    picture.width = (int)options->width;
    picture.height = (int)options->height;
    int stride = (int)options->width * 4;
    int imported = options->has_alpha ? WebPPictureImportRGBA(&picture, (uint8_t *)clanes_canvas_pixels(e), stride)
                                      : WebPPictureImportRGBX(&picture, (uint8_t *)clanes_canvas_pixels(e), stride);
    if (!imported) {
        WebPPictureFree(&picture);
        clanes_set_message(message, capacity, "out of memory importing %ux%u pixels into libwebp", options->width,
                           options->height);
        return CLANES_ERR_NO_MEMORY;
    }
    picture.writer = clanes_webp_write;
    picture.custom_ptr = e;
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    clanes_canvas_release(e);   /* the pixels are no longer needed, whatever happened */
    if (!ok) {
        clanes_set_message(message, capacity, "WebP encoding failed: %s", clanes_webp_error(code));
        return code == VP8_ENC_ERROR_OUT_OF_MEMORY || code == VP8_ENC_ERROR_BAD_WRITE ? CLANES_ERR_NO_MEMORY
                                                                                      : CLANES_ERR_ENCODE;
    }
    return CLANES_OK;
}

const clanes_encoder_format clanes_webp_encoder_format = {
    "WebP", WEBP_MAX_DIMENSION, clanes_webp_check, clanes_canvas_start, clanes_canvas_rows, clanes_webp_end,
    clanes_canvas_release,
};
