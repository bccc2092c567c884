/// MPD's case folding for the `search` family (`IcuCaseFold`, `src/lib/icu/CaseFold.cxx` in 0.23): ICU's
/// `u_strFoldCase` with `U_FOLD_CASE_DEFAULT` and no normalisation, so `É` matches `é` but not `e`, `ß` matches
/// `SS`, and CJK text is unchanged. The scanner stores `song_tag.value_folded` with this function, and queries fold
/// their needle with it, so both sides agree.
public enum CaseFolding {
    /// Full case folding, scalar by scalar. Swift has no case-fold mapping, but for every scalar that changes when
    /// case-folded, lowercasing its uppercase mapping gives Unicode's full folding (`ß` → `SS` → `ss`, `ſ` → `s`,
    /// `ς` → `σ`); scalars that do not change (such as the dotless `ı`) are kept.
    public static func fold(_ text: String) -> String {
        var ascii = true
        var upper = false
        for byte in text.utf8 {
            if byte >= 0x80 {
                ascii = false
                break
            }
            if byte >= 0x41 && byte <= 0x5A { upper = true }
        }
        if ascii {
            // Most tags: ASCII folds bytewise (the scanner folds every tag value it stores).
            guard upper else { return text }
            let count = text.utf8.count
            return String(unsafeUninitializedCapacity: count) { buffer in
                for (index, byte) in text.utf8.enumerated() {
                    buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
                return count
            }
        }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar.value < 0x80 {
                result.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
            } else if scalar.properties.changesWhenCaseFolded {
                let upper = scalar.properties.uppercaseMapping
                result.append(contentsOf: upper.lowercased().unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
