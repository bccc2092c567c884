import MPDProtocol
import PlayerCore
import Testing
@testable import MPDServer

/// MPD's in-memory matching rules (`src/song/*Filter.cxx`).
@Suite struct SongMatcherTests {
    static let song = Song(uri: "dir/a.flac", tags: [Song.Tag("Artist", "Alpha"), Song.Tag("Artist", "Beta"),
                                                     Song.Tag("Title", "Straße")],
                           lastModified: 1000, audioFormat: "44100:16:2")

    func matches(_ filter: String, fold: Bool = false, priority: UInt8 = 0) throws -> Bool {
        let expression = try FilterParser.parse(arguments: [filter], foldCase: fold)
        return SongMatcher(expression).matches(Self.song, priority: priority)
    }

    @Test func multiValueTagsMatchAnyAndNone() throws {
        #expect(try matches("(Artist == 'Beta')"))
        #expect(try !matches("(Artist != 'Beta')"))
        #expect(try matches("(Artist != 'Gamma')"))
    }

    @Test func emptyValueMeansAbsent() throws {
        #expect(try matches("(Album == '')"))
        #expect(try !matches("(Artist == '')"))
        #expect(try matches("(Artist != '')"))
    }

    @Test func fallbacks() throws {
        #expect(try matches("(AlbumArtist == 'Alpha')"))
        #expect(try matches("(AlbumArtistSort == 'Beta')"))
        #expect(try matches("(TitleSort == 'Straße')"))
    }

    @Test func operators() throws {
        #expect(try matches("(Title contains 'RAß')", fold: true))
        #expect(try !matches("(Title contains 'RAß')"))
        #expect(try matches("(Title starts_with 'Str')"))
        #expect(try matches("(Title =~ '^S.*e$')"))
        #expect(try matches("(Title !~ '^x')"))
        #expect(try matches("(file == 'dir/a.flac')"))
        #expect(try matches("(any == 'Beta')"))
        #expect(try matches("(base 'dir')") && !matches("(base 'di')"))
        #expect(try matches("(modified-since '1000')") && !matches("(modified-since '1001')"))
        #expect(try matches("(AudioFormat =~ '44100:*:2')") && !matches("(AudioFormat == '48000:16:2')"))
        #expect(try matches("(!(Artist == 'Gamma'))"))
        #expect(try matches("((Artist == 'Alpha') AND (Title == 'Straße'))"))
        #expect(try matches("(prio >= 3)", priority: 3) && !matches("(prio >= 3)", priority: 2))
    }
}
