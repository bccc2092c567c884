import Library
import MPDProtocol
import ServerPorts
import Testing

/// MPD's sticker table in the library's SQLite file.
@Suite struct StickerDatabaseTests {
    @Test func storeFindAndDelete() async throws {
        let fixture = try QueryFixture()
        let stickers = fixture.stickers
        #expect(try await stickers.stickerValue(type: "song", uri: "a/x.flac", name: "rating") == nil)
        try await stickers.setSticker(type: "song", uri: "a/x.flac", name: "rating", value: "5")
        try await stickers.setSticker(type: "song", uri: "a/x.flac", name: "rating", value: "7")
        try await stickers.setSticker(type: "song", uri: "a/y.flac", name: "rating", value: "10")
        try await stickers.setSticker(type: "song", uri: "ab/z.flac", name: "rating", value: "1")
        try await stickers.setSticker(type: "song", uri: "a/x.flac", name: "mood", value: "calm")
        #expect(try await stickers.stickerValue(type: "song", uri: "a/x.flac", name: "rating") == "7")
        #expect(try await stickers.stickers(type: "song", uri: "a/x.flac").map(\.name) == ["mood", "rating"])

        func find(_ base: String, _ op: StickerComparison.Operator? = nil, _ value: String = "",
                  sort: StickerSort? = nil, descending: Bool = false,
                  window: RangeArgument? = nil) async throws -> [String] {
            try await stickers.findStickers(type: "song", base: base, name: "rating",
                                            comparison: op.map { StickerComparison($0, value) }, sort: sort,
                                            descending: descending, window: window).map(\.uri)
        }
        // A directory prefix matches whole path components only.
        #expect(try await find("a") == ["a/x.flac", "a/y.flac"])
        #expect(try await find("") == ["a/x.flac", "a/y.flac", "ab/z.flac"])
        // `<` and `>` compare strings, `lt` and `gt` integers, as MPD 0.24 does.
        #expect(try await find("", .less, "5") == ["a/y.flac", "ab/z.flac"])
        #expect(try await find("", .integerLess, "5") == ["ab/z.flac"])
        #expect(try await find("", .integerGreater, "9") == ["a/y.flac"])
        #expect(try await find("", .equal, "7") == ["a/x.flac"])
        #expect(try await find("", .contains, "0") == ["a/y.flac"])
        #expect(try await find("", sort: .valueInteger, descending: true) == ["a/y.flac", "a/x.flac", "ab/z.flac"])
        #expect(try await find("", sort: .uri, window: RangeArgument(start: 1, end: 2)) == ["a/y.flac"])

        // MPD 0.24's SQL: an absent sticker starts at the value, also for `dec`.
        try await stickers.adjustSticker(type: "song", uri: "a/x.flac", name: "plays", by: "2", subtracting: true)
        #expect(try await stickers.stickerValue(type: "song", uri: "a/x.flac", name: "plays") == "2")
        try await stickers.adjustSticker(type: "song", uri: "a/x.flac", name: "plays", by: "5", subtracting: true)
        #expect(try await stickers.stickerValue(type: "song", uri: "a/x.flac", name: "plays") == "-3")
        try await stickers.adjustSticker(type: "song", uri: "a/x.flac", name: "plays", by: "x", subtracting: false)
        #expect(try await stickers.stickerValue(type: "song", uri: "a/x.flac", name: "plays") == "-3")
        #expect(try await stickers.stickerNames() == ["mood", "plays", "rating"])

        #expect(try await stickers.deleteSticker(type: "song", uri: "a/x.flac", name: "mood"))
        #expect(try await !stickers.deleteSticker(type: "song", uri: "a/x.flac", name: "mood"))
        #expect(try await stickers.deleteSticker(type: "song", uri: "a/x.flac", name: nil))
        #expect(try await stickers.stickers(type: "song", uri: "a/x.flac").isEmpty)
    }
}
