import CICUText

/// MPD 0.24's canonical form for the case-insensitive filters of the `search` family (`IcuCanonicalize` with
/// `fold_case`, `src/lib/icu/Canonicalize.cxx`): NFKC with case folding, then punctuation transliterated to ASCII.
/// So `É` matches `é` (not `e`), `ß` matches `SS`, fullwidth `ｶﾀｶﾅ` matches `カタカナ`, `ﬁ` matches `fi` and a
/// typographic apostrophe matches `'`. The scanner stores `song_tag.value_folded` with this function, queries fold
/// their needle with it and the queue's matcher folds both sides with it, so all agree.
public enum CaseFolding {
    /// The canonical form; ASCII text (most tags) is only lowercased, which is what ICU does to it.
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
        if let canonical = icuCanonical(text) { return canonical }
        return scalarFold(text)
    }

    /// `nosignal_canonicalize` (ICU), or nil when ICU fails.
    private static func icuCanonical(_ text: String) -> String? {
        var text = text
        return text.withUTF8 { utf8 -> String? in
            var capacity = utf8.count * 3 + 16
            while true {
                var output = [UInt8](repeating: 0, count: capacity)
                let written = utf8.withMemoryRebound(to: CChar.self) { input in
                    output.withUnsafeMutableBufferPointer { output in
                        output.withMemoryRebound(to: CChar.self) { output in
                            nosignal_canonicalize(input.baseAddress, Int32(utf8.count), output.baseAddress, Int32(capacity))
                        }
                    }
                }
                guard written >= 0 else { return nil }
                if Int(written) <= capacity { return String(decoding: output[..<Int(written)], as: UTF8.self) }
                capacity = Int(written)
            }
        }
    }

    /// Full case folding, scalar by scalar, for when ICU fails. Swift has no case-fold mapping, but for every scalar
    /// that changes when case-folded, lowercasing its uppercase mapping gives Unicode's full folding (`ß` → `SS` →
    /// `ss`, `ſ` → `s`, `ς` → `σ`); scalars that do not change (such as the dotless `ı`) are kept.
    static func scalarFold(_ text: String) -> String {
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
