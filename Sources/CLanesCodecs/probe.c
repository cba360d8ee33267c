/* Header probing: PNG IHDR and JPEG markers (SOFn, APP1 Exif orientation); WebP, GIF, AVIF, HEIF and JPEG XL in their
 * own files. */
#include "clanes_codecs.h"
#include "codecs_internal.h"
#include "frames_internal.h"

#include <string.h>
#include <zlib.h>

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A};

static int png_depth_is_valid(uint8_t colour_type, uint8_t depth) {
    switch (colour_type) {
    case 0: return depth == 1 || depth == 2 || depth == 4 || depth == 8 || depth == 16;
    case 3: return depth == 1 || depth == 2 || depth == 4 || depth == 8;
    case 2: case 4: case 6: return depth == 8 || depth == 16;
    default: return 0;
    }
}

/* Whether a tRNS chunk comes before the first IDAT (chunks are walked by their lengths, bounded by `size`). */
static int png_has_trns(const uint8_t *data, size_t size) {
    size_t offset = 8 + 25; /* signature, IHDR */
    while (size - offset >= 12) {
        uint32_t length = clanes_be32(data + offset);
        const uint8_t *type = data + offset + 4;
        if (memcmp(type, "tRNS", 4) == 0) return 1;
        if (memcmp(type, "IDAT", 4) == 0 || length > size - offset - 12) return 0;
        offset += 12 + (size_t)length;
    }
    return 0;
}

static int32_t probe_png(const uint8_t *data, size_t size, clanes_info *info,
                         char *message, size_t capacity) {
    /* signature(8) + length(4) + "IHDR"(4) + 13 bytes + CRC(4) */
    if (size < 33) {
        clanes_set_message(message, capacity, "PNG ends inside its header (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    const uint8_t *chunk = data + 8;
    if (clanes_be32(chunk) != 13 || memcmp(chunk + 4, "IHDR", 4) != 0) {
        clanes_set_message(message, capacity, "PNG does not start with a valid IHDR chunk");
        return CLANES_ERR_CORRUPT;
    }
    uLong crc = crc32(0L, chunk + 4, 17);
    if ((uint32_t)crc != clanes_be32(chunk + 21)) {
        clanes_set_message(message, capacity, "PNG IHDR chunk has a bad CRC");
        return CLANES_ERR_CORRUPT;
    }
    const uint8_t *ihdr = chunk + 8;
    uint32_t width = clanes_be32(ihdr);
    uint32_t height = clanes_be32(ihdr + 4);
    uint8_t depth = ihdr[8], colour_type = ihdr[9], interlace = ihdr[12];
    if (width == 0 || height == 0 || width > 0x7FFFFFFFu || height > 0x7FFFFFFFu) {
        clanes_set_message(message, capacity, "PNG has invalid dimensions %ux%u", width, height);
        return CLANES_ERR_CORRUPT;
    }
    if (!png_depth_is_valid(colour_type, depth) || ihdr[10] != 0 || ihdr[11] != 0 || interlace > 1) {
        clanes_set_message(message, capacity, "PNG IHDR has an invalid colour type/bit depth (%u/%u)",
                           colour_type, depth);
        return CLANES_ERR_CORRUPT;
    }
    static const int32_t channels[7] = {1, 0, 3, 1, 2, 0, 4};
    info->format = CLANES_FORMAT_PNG;
    info->width = width;
    info->height = height;
    info->orientation = 1;
    info->components = channels[colour_type];
    info->bit_depth = depth;
    info->progressive = interlace;
    info->layout_channels = colour_type == 0 ? (png_has_trns(data, size) ? 2 : 1) : colour_type == 4 ? 2 : 4;
    info->layout_bytes = depth == 16 ? 2 : 1;
    return CLANES_OK;
}

/* Reads the orientation tag (0x0112) from IFD0 of an Exif APP1 payload; 1 if absent/invalid. */
static int32_t exif_orientation(const uint8_t *payload, size_t length) {
    static const uint8_t exif_header[6] = {'E', 'x', 'i', 'f', 0, 0};
    if (length < 6 + 8 || memcmp(payload, exif_header, 6) != 0) {
        return 1;
    }
    const uint8_t *tiff = payload + 6;
    size_t tiff_length = length - 6;
    int little;
    if (tiff[0] == 'I' && tiff[1] == 'I') {
        little = 1;
    } else if (tiff[0] == 'M' && tiff[1] == 'M') {
        little = 0;
    } else {
        return 1;
    }
    uint16_t magic = little ? clanes_le16(tiff + 2) : clanes_be16(tiff + 2);
    uint32_t ifd = little ? clanes_le32(tiff + 4) : clanes_be32(tiff + 4);
    if (magic != 42 || ifd > tiff_length || tiff_length - ifd < 2) {
        return 1;
    }
    uint16_t count = little ? clanes_le16(tiff + ifd) : clanes_be16(tiff + ifd);
    size_t entry = (size_t)ifd + 2;
    for (uint16_t i = 0; i < count; i++, entry += 12) {
        if (entry + 12 > tiff_length) {
            return 1;
        }
        const uint8_t *e = tiff + entry;
        uint16_t tag = little ? clanes_le16(e) : clanes_be16(e);
        if (tag != 0x0112) {
            continue;
        }
        uint16_t type = little ? clanes_le16(e + 2) : clanes_be16(e + 2);
        uint32_t n = little ? clanes_le32(e + 4) : clanes_be32(e + 4);
        if (type != 3 || n < 1) {
            return 1;
        }
        uint16_t value = little ? clanes_le16(e + 8) : clanes_be16(e + 8);
        return (value >= 1 && value <= 8) ? (int32_t)value : 1;
    }
    return 1;
}

static int is_sof_marker(uint8_t marker) {
    /* SOF0-SOF15 except DHT (C4), JPG (C8) and DAC (CC). */
    return marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
}

static int32_t probe_jpeg(const uint8_t *data, size_t size, clanes_info *info,
                          char *message, size_t capacity) {
    int32_t orientation = 1;
    int have_frame = 0;
    size_t pos = 2; /* after SOI */
    for (;;) {
        if (pos >= size) {
            break;
        }
        if (data[pos] != 0xFF) {
            clanes_set_message(message, capacity, "JPEG has garbage where a marker should be (offset %zu)", pos);
            return CLANES_ERR_CORRUPT;
        }
        while (pos < size && data[pos] == 0xFF) {
            pos++; /* fill bytes */
        }
        if (pos >= size) {
            break;
        }
        uint8_t marker = data[pos++];
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {
            continue; /* standalone markers */
        }
        if (marker == 0xD9 || marker == 0xDA || marker == 0x00) {
            /* EOI or start of scan: the header is over. */
            if (!have_frame) {
                clanes_set_message(message, capacity, "JPEG has no frame header before its first scan");
                return CLANES_ERR_CORRUPT;
            }
            break;
        }
        if (size - pos < 2) {
            break;
        }
        size_t length = clanes_be16(data + pos);
        if (length < 2) {
            clanes_set_message(message, capacity, "JPEG marker 0x%02X has an invalid length", marker);
            return CLANES_ERR_CORRUPT;
        }
        if (length > size - pos) {
            break; /* the segment is cut off: fine if the frame header was already seen */
        }
        const uint8_t *segment = data + pos + 2;
        size_t segment_length = length - 2;
        if (marker == 0xE1 && orientation == 1) {
            orientation = exif_orientation(segment, segment_length);
        } else if (is_sof_marker(marker) && !have_frame) {
            if (segment_length < 6) {
                clanes_set_message(message, capacity, "JPEG frame header is too short");
                return CLANES_ERR_CORRUPT;
            }
            info->bit_depth = segment[0];
            info->height = clanes_be16(segment + 1);
            info->width = clanes_be16(segment + 3);
            info->components = segment[5];
            info->layout_channels = segment[5] == 1 ? 1 : 4;
            info->layout_bytes = 1;
            info->progressive = (marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE);
            if (info->width == 0) {
                clanes_set_message(message, capacity, "JPEG frame header has zero width");
                return CLANES_ERR_CORRUPT;
            }
            if (info->height == 0) {
                clanes_set_message(message, capacity, "JPEG defines its height later (DNL marker): unsupported");
                return CLANES_ERR_UNSUPPORTED;
            }
            have_frame = 1;
        }
        pos += length;
    }
    if (!have_frame) {
        clanes_set_message(message, capacity, "JPEG ends before its frame header (%zu bytes)", size);
        return CLANES_ERR_TRUNCATED;
    }
    info->format = CLANES_FORMAT_JPEG;
    info->orientation = orientation;
    return CLANES_OK;
}

/* The major brands of HEIF files (HEVC stills and sequences, and the generic image brands libheif reads). */
static int is_heif_brand(const uint8_t *brand) {
    static const char brands[][4] = {{'h','e','i','c'}, {'h','e','i','x'}, {'h','e','v','c'}, {'h','e','v','x'},
                                     {'h','e','i','m'}, {'h','e','i','s'}, {'m','i','f','1'}, {'m','s','f','1'}};
    for (size_t i = 0; i < sizeof brands / sizeof brands[0]; i++) {
        if (memcmp(brand, brands[i], 4) == 0) return 1;
    }
    return 0;
}

/* A JPEG XL codestream (FF 0A) or its ISO BMFF container (a 12-byte `JXL ` box). */
static int is_jxl_signature(const uint8_t *data, size_t size) {
    static const uint8_t container[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    return (size >= 2 && data[0] == 0xFF && data[1] == 0x0A) || (size >= 12 && memcmp(data, container, 12) == 0);
}

int32_t clanes_probe(const uint8_t *data, size_t size, clanes_info *info,
                     char *message, size_t message_capacity) {
    if (info == NULL || (data == NULL && size > 0)) {
        clanes_set_message(message, message_capacity, "no data or no info to fill");
        return CLANES_ERR_ARGUMENT;
    }
    memset(info, 0, sizeof(*info));
    info->orientation = 1;
    if (size >= 8 && memcmp(data, png_signature, 8) == 0) {
        return probe_png(data, size, info, message, message_capacity);
    }
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) {
        return probe_jpeg(data, size, info, message, message_capacity);
    }
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) {
        return clanes_webp_probe(data, size, info, message, message_capacity);
    }
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) {
        return clanes_gif_probe(data, size, info, message, message_capacity);
    }
    if (size >= 12 && memcmp(data + 4, "ftyp", 4) == 0
        && (memcmp(data + 8, "avif", 4) == 0 || memcmp(data + 8, "avis", 4) == 0)) {
        return clanes_avif_probe(data, size, info, message, message_capacity);
    }
    if (size >= 12 && memcmp(data + 4, "ftyp", 4) == 0 && is_heif_brand(data + 8)) {
        return clanes_heif_probe(data, size, info, message, message_capacity);
    }
    if (is_jxl_signature(data, size)) {
        return clanes_jxl_probe(data, size, info, message, message_capacity);
    }
    clanes_set_message(message, message_capacity, "not a PNG, JPEG, WebP, GIF, AVIF, HEIF or JPEG XL signature");
    return CLANES_ERR_UNSUPPORTED;
}
