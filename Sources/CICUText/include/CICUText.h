// ICU's root collation, as MPD's `IcuCollate` uses it (`ucol_open("")`, `ucol_strcollUTF8`), through sort keys.
// Only plain C types cross this header: Foundation brings its own ICU, whose types must not meet libicu's.
#include <stdint.h>

// The root collation's sort key of UTF-8 text into `key` (at most `capacity` bytes, NUL-terminated): the length the
// key needs (call again with more room when it is larger than `capacity`), or -1 when ICU fails. Ill-formed UTF-8
// counts as U+FFFD, as in `ucol_strcollUTF8`.
int32_t nosignal_sort_key(const char *text, int32_t length, uint8_t *key, int32_t capacity);

// MPD 0.24's `IcuCanonicalize(text, fold_case = true)`, which the case-insensitive filters compare: NFKC with case
// folding (`unorm2_getNFKCCasefoldInstance`), then every punctuation mark transliterated to ASCII
// (`[:Punctuation:] Latin-ASCII`). Writes UTF-8 into `out` (at most `capacity` bytes, not terminated) and returns
// its length (call again with more room when it is larger than `capacity`), or -1 when the text is not UTF-8 or
// ICU fails (MPD then compares the text as it is).
int32_t nosignal_canonicalize(const char *text, int32_t length, char *out, int32_t capacity);
