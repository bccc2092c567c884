@testable import Library
import Testing

/// `CollationKey` is ICU's root collation (`IcuCollate` in MPD): the orders below are ICU's, which a bytewise or a
/// Unicode-scalar order gets wrong.
@Suite struct CollationTests {
    static func sorted(_ texts: [String]) -> [String] { CollationKey.sortedIndices(texts).map { texts[$0] } }

    @Test func accentsAndLigaturesSortWithTheirBaseLetters() {
        // ø is o with a stroke and ß is ss for the first level, so the next letters decide.
        #expect(Self.sorted(["Ana Straße", "Ana Sørensen"]) == ["Ana Sørensen", "Ana Straße"])
        #expect(Self.sorted(["zoe", "Zoë", "Zoe", "Zebra", "résumé", "resume", "RESUME"])
                == ["resume", "RESUME", "résumé", "Zebra", "zoe", "Zoe", "Zoë"])
    }

    @Test func scriptsComeInTheRootOrder() {
        // Latin, Greek, Cyrillic, then Hebrew, Arabic, Devanagari, Thai, hangul, kana, and Han last.
        let texts = ["東京", "한국어", "カタカナ", "Ёлка", "Ωμέγα", "Zed", "שלום", "مرحبا", "नमस्ते", "ไทย"]
        #expect(Self.sorted(texts) == ["Zed", "Ωμέγα", "Ёлка", "שלום", "مرحبا", "नमस्ते", "ไทย", "한국어", "カタカナ", "東京"])
    }

    @Test func digitsPunctuationAndSymbolsComeBeforeLetters() {
        #expect(Self.sorted(["a", "1", "_under", "- dash", "#hash", "€uro", "(live)"])
                == ["_under", "- dash", "(live)", "#hash", "€uro", "1", "a"])
    }

    /// `IcuCollate` answers 0 for canonically equivalent text (a precomposed `á` and `a` with a combining accent);
    /// the keys' `<` still orders them, by their bytes.
    @Test func canonicallyEquivalentTextCollatesEqual() {
        let precomposed = CollationKey("\u{E1}"), combining = CollationKey("a\u{301}")
        #expect(CollationKey.collate(precomposed, combining) == 0)
        #expect((precomposed < combining) != (combining < precomposed))
        #expect(CollationKey.collate(CollationKey("a"), CollationKey("A")) < 0)
    }
}
