import ALSAOutput
import FFmpegDecoder
import Library
import NetEase
import Testing

/// The C libraries build, link and answer from Swift on this machine. Their real use comes with the
/// audio, library and NetEase milestones; these prove the foundation can carry them.
@Suite struct EdgeLinkTests {
    @Test func ffmpegKnowsTheFormatsWePlay() {
        let formats = FFmpegCatalog.formats()
        for suffix in ["mp3", "flac", "ogg", "wav", "m4a", "opus"] {
            #expect(formats.suffixes.contains(suffix), "FFmpeg cannot open .\(suffix)")
        }
        #expect(formats.mimeTypes.contains("audio/mpeg") && formats.mimeTypes.contains("audio/flac"))
        #expect(!formats.suffixes.contains("srt"), "subtitles are not music")
        #expect(FFmpegCatalog.version.split(separator: ".").count == 3)
        #expect(FFmpegCatalog.endOfFileError < 0)
    }

    @Test func alsaOpensTheNullPCM() {
        #expect(ALSAProbe.canOpen(pcm: "null"))
        #expect(!ALSAProbe.libraryVersion.isEmpty)
    }

    @Test func libcryptoMD5MatchesKnownVectors() {
        #expect(NetEaseCrypto.md5Hex([]) == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(NetEaseCrypto.md5Hex(Array("The quick brown fox jumps over the lazy dog".utf8))
                == "9e107d9d372bb6826bd81d3542a419d6")
    }

    @Test func libcurlIsLinked() {
        #expect(HTTPClient.version.hasPrefix("libcurl/"))
    }

    @Test func sqliteMigrationsRun() throws {
        let db = try LibraryDatabase()
        #expect(try db.schemaVersion().first == "v1-meta")
    }
}
