#include "CICUText.h"
#include <unicode/unorm2.h>
#include <unicode/utrans.h>

#include <stdlib.h>
#include <string.h>
#include <unicode/ucol.h>
#include <unicode/ustring.h>

// One collator per thread: a UCollator is not shared between threads. ICU renames its functions per version with
// macros (`ucol_open` is `ucol_open_72`); compiled here, against Debian's libicu, the one Debian's MPD links.
static const UCollator *root_collator(void) {
    static __thread UCollator *collator = 0;
    if (!collator) {
        UErrorCode error = U_ZERO_ERROR;
        collator = ucol_open("", &error);
        if (U_FAILURE(error)) collator = 0;
    }
    return collator;
}

int32_t nosignal_sort_key(const char *text, int32_t length, uint8_t *key, int32_t capacity) {
    const UCollator *collator = root_collator();
    if (!collator || length < 0) return -1;
    // The UTF-16 form is never longer than the UTF-8 (in code units).
    UChar small[256];
    UChar *units = length <= 256 ? small : malloc(sizeof(UChar) * (size_t)length);
    if (!units) return -1;
    UErrorCode error = U_ZERO_ERROR;
    int32_t count = 0;
    u_strFromUTF8WithSub(units, length, &count, text, length, 0xFFFD, 0, &error);
    int32_t needed = U_FAILURE(error) ? -1 : ucol_getSortKey(collator, units, count, key, capacity);
    if (units != small) free(units);
    return needed;
}

// One transliterator per thread, as the collator.
static UTransliterator *punctuation_to_ascii(void) {
    static __thread UTransliterator *transliterator = 0;
    if (!transliterator) {
        static const char id[] = "[:Punctuation:] Latin-ASCII;";
        UChar units[64];
        u_charsToUChars(id, units, (int32_t)sizeof id);
        UErrorCode error = U_ZERO_ERROR;
        transliterator = utrans_openU(units, -1, UTRANS_FORWARD, 0, 0, 0, &error);
        if (U_FAILURE(error)) transliterator = 0;
    }
    return transliterator;
}

int32_t nosignal_canonicalize(const char *text, int32_t length, char *out, int32_t capacity) {
    if (length < 0) return -1;
    UErrorCode error = U_ZERO_ERROR;
    int32_t count = 0;
    u_strFromUTF8(0, 0, &count, text, length, &error);
    if (error != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(error)) return -1;
    error = U_ZERO_ERROR;
    UChar *units = malloc(sizeof(UChar) * (size_t)(count + 1));
    if (!units) return -1;
    u_strFromUTF8(units, count + 1, &count, text, length, &error);
    if (U_FAILURE(error)) { free(units); return -1; }

    // MPD's buffers (`IcuNormalize`, `IcuTransliterator::Transliterate`) hold twice the input's UTF-16 units; when a
    // step's result would not fit, that step fails and MPD goes on with its input. So `Ⅻ` (one unit, `xii` folded)
    // stays `Ⅻ`, while `Ⅻ a` becomes `xii a`.
    const UNormalizer2 *normalizer = unorm2_getNFKCCasefoldInstance(&error);
    if (U_FAILURE(error)) { free(units); return -1; }
    int32_t room = count * 2 + 1;
    UChar *normal = malloc(sizeof(UChar) * (size_t)room);
    if (!normal) { free(units); return -1; }
    int32_t normalLength = unorm2_normalize(normalizer, units, count, normal, count * 2, &error);
    if (U_FAILURE(error)) {
        error = U_ZERO_ERROR;
        memcpy(normal, units, sizeof(UChar) * (size_t)count);
        normalLength = count;
    }
    free(units);

    UTransliterator *transliterator = punctuation_to_ascii();
    if (transliterator) {
        int32_t transRoom = normalLength * 2;
        UChar *translated = malloc(sizeof(UChar) * (size_t)(transRoom + 1));
        if (!translated) { free(normal); return -1; }
        memcpy(translated, normal, sizeof(UChar) * (size_t)normalLength);
        int32_t translatedLength = normalLength;
        int32_t limit = normalLength;
        utrans_transUChars(transliterator, translated, &translatedLength, transRoom, 0, &limit, &error);
        if (U_FAILURE(error)) {
            error = U_ZERO_ERROR;
            free(translated);
        } else {
            free(normal);
            normal = translated;
            normalLength = translatedLength;
        }
    }
    int32_t written = 0;
    u_strToUTF8(out, capacity, &written, normal, normalLength, &error);
    free(normal);
    if (U_FAILURE(error) && error != U_BUFFER_OVERFLOW_ERROR && error != U_STRING_NOT_TERMINATED_WARNING) return -1;
    return written;
}
