import Foundation
import Testing
@testable import FFmpegDecoder

/// APEv2 tags at the end of a file, before an ID3v1 tag or without one, text items only, in the file's order.
@Suite struct APETagsTests {
    static func item(_ key: String, _ value: [UInt8], flags: UInt32 = 0) -> [UInt8] {
        func le(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        return le(UInt32(value.count)) + le(flags) + Array(key.utf8) + [0] + value
    }

    static func tag(_ items: [[UInt8]]) -> [UInt8] {
        let body = items.flatMap { $0 }
        func le(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        return body + Array("APETAGEX".utf8) + le(2000) + le(body.count + 32) + le(items.count) + le(0) + [UInt8](repeating: 0, count: 8)
    }

    @Test func itemsInFileOrderBeforeAnID3v1Tag() throws {
        let items = [Self.item("Title", Array("T".utf8)), Self.item("Cover Art (Front)", [1, 2, 3], flags: 2),
                     Self.item("Artist", Array("A\0B".utf8)), Self.item("Year", Array("2003".utf8))]
        let v1 = Array("TAG".utf8) + [UInt8](repeating: 0x20, count: 125)
        for trailer in [[], v1] {
            let path = NSTemporaryDirectory() + "nosignal-ape-\(UUID().uuidString).mp3"
            defer { try? FileManager.default.removeItem(atPath: path) }
            try Data([UInt8](repeating: 0, count: 300) + Self.tag(items) + trailer).write(to: URL(fileURLWithPath: path))
            let read = APETags.read(path: path)
            #expect(read.map(\.key) == ["Title", "Artist", "Year"])
            #expect(read.map(\.value) == ["T", "A\0B", "2003"])
        }
    }

    @Test func noTagNoItems() throws {
        let path = NSTemporaryDirectory() + "nosignal-ape-\(UUID().uuidString).mp3"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data([UInt8](repeating: 0x41, count: 500)).write(to: URL(fileURLWithPath: path))
        #expect(APETags.read(path: path).isEmpty)
    }
}

/// Genres as libid3tag reads them.
@Suite struct ID3GenreTests {
    @Test func version3ReferencesAndText() {
        #expect(FFmpegInspector.id3v23Genres("(RX)(17)Rock") == ["RX", "17", "Rock"])
        #expect(FFmpegInspector.id3v23Genres("(4)") == ["4"])
        #expect(FFmpegInspector.id3v23Genres("((Not a reference)") == ["(Not a reference)"])
        #expect(FFmpegInspector.id3v23Genres("Eurodance") == ["Eurodance"])
        #expect(FFmpegInspector.id3v23Genres("(abc)x") == ["(abc)x"])
    }

    @Test func namesOfNumbers() {
        #expect(["13", "RX", "CR", "40", "147", "148", "(13)", "Pop"].map(FFmpegInspector.id3GenreName)
                == ["Pop", "Remix", "Cover", "AlternRock", "Synthpop", "148", "(13)", "Pop"])
    }
}
