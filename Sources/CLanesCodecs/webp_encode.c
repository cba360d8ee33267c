/* WebP output through libwebp's advanced API: lossy (VP8, with alpha when asked) or lossless (VP8L). */
#include "clanes_codecs.h"
#include "whole_stream_internal.h"

#include <webp/encode.h>

/* libwebp's writer callback: appends to the clanes_buffer in picture->custom_ptr. */
static int clanes_webp_write(const uint8_t *data, size_t size, const WebPPicture *picture) {
    return clanes_buffer_append((clanes_buffer *)picture->custom_ptr, data, size);
}

static const char *clanes_webp_error(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimensions";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "a partition overflowed (try a lower quality)";
    case VP8_ENC_ERROR_BAD_WRITE: return "out of memory for the output";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the file would exceed 4 GiB";
    default: return "libwebp failed";
    }
}

static int32_t clanes_webp_encode(const clanes_whole_stream *stream, clanes_buffer *output, char *message,
                                  size_t capacity) {
    const clanes_whole_encode_options *options = &stream->options;
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
    int imported = options->has_alpha ? WebPPictureImportRGBA(&picture, stream->canvas, stride)
                                      : WebPPictureImportRGBX(&picture, stream->canvas, stride);
    if (!imported) {
        WebPPictureFree(&picture);
        clanes_set_message(message, capacity, "out of memory importing %ux%u pixels into libwebp", options->width,
                           options->height);
        return CLANES_ERR_NO_MEMORY;
    }
    picture.writer = clanes_webp_write;
    picture.custom_ptr = output;
    int ok = WebPEncode(&config, &picture);
    WebPEncodingError code = picture.error_code;
    WebPPictureFree(&picture);
    if (!ok) {
        clanes_set_message(message, capacity, "WebP encoding failed: %s", clanes_webp_error(code));
        return code == VP8_ENC_ERROR_OUT_OF_MEMORY || code == VP8_ENC_ERROR_BAD_WRITE ? CLANES_ERR_NO_MEMORY
                                                                                      : CLANES_ERR_ENCODE;
    }
    return CLANES_OK;
}

int32_t clanes_webp_stream_begin(const clanes_whole_encode_options *options, clanes_whole_stream **stream,
                                 char *message, size_t message_capacity) {
    if (options != NULL && (options->effort < 0 || options->effort > 6)) {
        clanes_set_message(message, message_capacity, "WebP effort %d is not 0...6", options->effort);
        return CLANES_ERR_ARGUMENT;
    }
    return clanes_whole_stream_create(options, WEBP_MAX_DIMENSION, "WebP", clanes_webp_encode, stream, message,
                                      message_capacity);
}
