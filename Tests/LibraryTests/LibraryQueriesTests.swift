import Foundation
import Library
import MPDProtocol
import PlayerCore
import ServerPorts
import Synchronization
import Testing

/// Filter → SQL with MPD's matching rules, on a real SQLite file.
@Suite struct LibraryQueriesTests {
    let fixture: QueryFixture

    init() throws {
        fixture = try QueryFixture()
        try fixture.add("a/one.flac", [(.artist, "Alpha"), (.artist, "Beta"), (.album, "First"), (.track, "2"),
                                       (.title, "Straße")], duration: 61.5, modified: 1000, added: 5000,
                        format: "44100:16:2")
        try fixture.add("a/two.flac", [(.artist, "Gamma"), (.albumArtist, "Various"), (.album, "First"),
                                       (.track, "10"), (.title, "Éclair")], duration: 30.25, modified: 2000,
                        added: 6000, format: "48000:24:2")
        try fixture.add("b/three.mp3", [(.artist, "alpha"), (.title, "日本語の歌")], duration: 10, modified: 3000,
                        format: "44100:16:1")
        try fixture.add("b/sub/four.ogg", [(.title, "No Artist")])
        try fixture.add("root.wav", [(.artist, "Zeta"), (.album, "Zed")], duration: 1)
    }

    @Test func equalsMatchesAnyValueOfAMultiValueTag() async throws {
        #expect(try await fixture.find(["(Artist == 'Beta')"]) == ["a/one.flac"])
        #expect(try await fixture.find(["artist", "Alpha"]) == ["a/one.flac"])
    }

    @Test func notEqualsMeansNoValueMatches() async throws {
        // MPD: `!=` is true when no value matches, so a song with Artist Alpha and Beta is excluded by
        // `!= 'Beta'` though its Alpha differs; songs without the tag match.
        #expect(try await fixture.find(["(Artist != 'Beta')"]) == ["root.wav", "a/two.flac", "b/three.mp3", "b/sub/four.ogg"])
    }

    @Test func emptyValueMeansTagAbsent() async throws {
        #expect(try await fixture.find(["(Artist == '')"]) == ["b/sub/four.ogg"])
        #expect(try await fixture.find(["(Album != '')"]) == ["root.wav", "a/one.flac", "a/two.flac"])
    }

    @Test func albumArtistFallsBackToArtist() async throws {
        #expect(try await fixture.find(["(AlbumArtist == 'Alpha')"]) == ["a/one.flac"])
        // two.flac has AlbumArtist, so its Artist is not consulted.
        #expect(try await fixture.find(["(AlbumArtist == 'Gamma')"]) == [])
        #expect(try await fixture.find(["(AlbumArtistSort == 'Various')"]) == ["a/two.flac"])
    }

    @Test func searchFoldsCaseAndMatchesSubstrings() async throws {
        #expect(try await fixture.search(["artist", "ALP"]) == ["a/one.flac", "b/three.mp3"])
        #expect(try await fixture.search(["(Artist == 'ALPHA')"]) == ["a/one.flac", "b/three.mp3"])
        #expect(try await fixture.find(["(Artist eq_ci 'ALPHA')"]) == ["a/one.flac", "b/three.mp3"])
        // Full case folding: ß folds to ss; accents are not stripped (MPD 0.23 with ICU).
        #expect(try await fixture.search(["(Title == 'STRASSE')"]) == ["a/one.flac"])
        #expect(try await fixture.search(["(Title contains 'éCL')"]) == ["a/two.flac"])
        #expect(try await fixture.search(["(Title contains 'ecl')"]) == [])
        #expect(try await fixture.search(["(Title contains '本語')"]) == ["b/three.mp3"])
    }

    @Test func containsStartsWithAndRegex() async throws {
        #expect(try await fixture.find(["(Title contains 'air')"]) == ["a/two.flac"])
        #expect(try await fixture.find(["(Title starts_with 'No')"]) == ["b/sub/four.ogg"])
        #expect(try await fixture.find(["(Title starts_with 'Artist')"]) == [])
        #expect(try await fixture.find(["(Artist =~ '^[AB]')"]) == ["a/one.flac"])
        #expect(try await fixture.search(["(Artist =~ '^a.*a$')"]) == ["a/one.flac", "b/three.mp3"])
        #expect(try await fixture.find(["(Artist !~ 'a')"]) == ["b/sub/four.ogg"])
    }

    @Test func anyLooksAtEveryTagButNotTheURI() async throws {
        #expect(try await fixture.find(["(any == 'First')"]) == ["a/one.flac", "a/two.flac"])
        #expect(try await fixture.search(["any", "three"]) == [])
    }

    @Test func fileBaseAndTimes() async throws {
        #expect(try await fixture.find(["(file == 'b/three.mp3')"]) == ["b/three.mp3"])
        #expect(try await fixture.search(["(file contains 'SUB')"]) == ["b/sub/four.ogg"])
        #expect(try await fixture.find(["(base 'b')"]) == ["b/three.mp3", "b/sub/four.ogg"])
        #expect(try await fixture.find(["(base 'b')", "(Title == 'No Artist')"]) == ["b/sub/four.ogg"])
        await #expect(throws: PortError.notFound("No such directory")) {
            try await fixture.find(["(base 'nope')"])
        }
        #expect(try await fixture.find(["(modified-since '2000')"]) == ["a/two.flac", "b/three.mp3"])
        #expect(try await fixture.find(["(added-since '5500')"]) == ["a/two.flac"])
        #expect(try await fixture.find(["(AudioFormat == '44100:16:2')"]) == ["a/one.flac"])
        #expect(try await fixture.find(["(AudioFormat =~ '44100:*:*')"]) == ["a/one.flac", "b/three.mp3"])
        #expect(try await fixture.find(["(!(AudioFormat =~ '*:*:2'))"]) == ["root.wav", "b/three.mp3", "b/sub/four.ogg"])
    }

    @Test func walkOrderSortAndWindow() async throws {
        // Root songs first, then each directory's songs (album, disc, track, name), then subdirectories.
        #expect(try await fixture.find(["(base '')"]).count == 5)
        #expect(try await fixture.find(["(file != '')"]) == ["root.wav", "a/one.flac", "a/two.flac", "b/three.mp3", "b/sub/four.ogg"])
        #expect(try await fixture.find(["(file != '')", "sort", "Track"]) == ["root.wav", "b/three.mp3", "b/sub/four.ogg", "a/one.flac", "a/two.flac"])
        #expect(try await fixture.find(["(file != '')", "sort", "-Title"]) == ["b/three.mp3", "a/two.flac", "a/one.flac", "b/sub/four.ogg", "root.wav"])
        #expect(try await fixture.find(["(file != '')", "sort", "-Last-Modified", "window", "0:2"]) == ["b/three.mp3", "a/two.flac"])
        #expect(try await fixture.find(["(file != '')", "window", "3:"]) == ["b/three.mp3", "b/sub/four.ogg"])
        // AlbumArtist sorts by Artist when missing.
        #expect(try await fixture.find(["(file != '')", "sort", "AlbumArtist"]) == ["b/sub/four.ogg", "a/one.flac", "a/two.flac", "root.wav", "b/three.mp3"])
    }

    @Test func songsCarryTheirTagsInOrder() async throws {
        let songs = try await fixture.queries.songs(matching: FilterQuery(expression: .tag(.file, StringMatch("a/one.flac"))))
        #expect(songs == [Song(uri: "a/one.flac", tags: [.init("Artist", "Alpha"), .init("Artist", "Beta"),
                                                          .init("Album", "First"), .init("Track", "2"),
                                                          .init("Title", "Straße")],
                               duration: 61.5, lastModified: 1000, added: 5000, audioFormat: "44100:16:2")])
    }

    @Test func countTotalsAndGroups() async throws {
        let all = try await fixture.queries.count(CountQuery(expression: .and([])))
        #expect(all.map(\.songs) == [5] && all.map(\.playtime) == [102])
        let byArtist = try await fixture.queries.count(CountQuery(expression: .and([]), group: .artist))
        #expect(byArtist.map(\.group) == ["", "Alpha", "Beta", "Gamma", "Zeta", "alpha"])
        #expect(byArtist.map(\.songs) == [1, 1, 1, 1, 1, 1])
        #expect(byArtist.map(\.playtime) == [0, 61, 61, 30, 1, 10])
        let byAlbumArtist = try await fixture.queries.count(CountQuery(expression: .tag(.tag(.album), StringMatch("First")), group: .albumArtist))
        #expect(byAlbumArtist.map(\.group) == ["Alpha", "Beta", "Various"])
    }

    @Test func listDedupesSortsBytewiseAndGroups() async throws {
        #expect(try await fixture.queries.list(ListQuery(tag: .artist)) == [[""], ["Alpha"], ["Beta"], ["Gamma"], ["Zeta"], ["alpha"]])
        #expect(try await fixture.queries.list(ListQuery(tag: .album, expression: .tag(.tag(.artist), StringMatch("Gamma")))) == [["First"]])
        let grouped = try await fixture.queries.list(ListQuery(tag: .title, groups: [.album]))
        #expect(grouped == [["", "No Artist"], ["", "日本語の歌"], ["First", "Straße"], ["First", "Éclair"], ["Zed", ""]])
        #expect(try await fixture.queries.list(ListQuery(tag: nil)).count == 5)
    }

    @Test func netEaseSongsFollowTheTree() async throws {
        try fixture.add("netease://song/1", [(.artist, "Alpha")])
        #expect(try await fixture.find(["(Artist == 'Alpha')"]) == ["a/one.flac", "netease://song/1"])
    }

    @Test func regexErrorsAreCaughtWhileParsing() async throws {
        // PCRE2's own message, as MPD prints it (libpcre2 is loaded at run time).
        await #expect(throws: ACKError(.arg, "Error in regex at offset 1: missing closing parenthesis")) {
            try await fixture.find(["(Artist =~ '(')"])
        }
        // No PCRE2_UTF, as in MPD: `.` is one byte, so the two-byte `É` takes two.
        #expect(try await fixture.find(["(Title =~ '^.{2}clair$')"]) == ["a/two.flac"])
        #expect(try await fixture.find(["(Title =~ '^.clair$')"]) == [])
    }

    @Test func caseFoldingIsFull() {
        #expect(CaseFolding.fold("Straße") == "strasse")
        #expect(CaseFolding.fold("ÉCLAIR") == "éclair")
        #expect(CaseFolding.fold("ΣΊΣΥΦΟΣ") == "σίσυφοσ")
        #expect(CaseFolding.fold("日本") == "日本")
        #expect(CaseFolding.fold("ı") == "ı")
    }

    /// MPD 0.24's canonical form (`IcuCanonicalize`): NFKC with case folding, punctuation in ASCII.
    @Test func canonicalFormIsMPD024s() {
        #expect(CaseFolding.fold("ｶﾀｶﾅ") == "カタカナ")
        #expect(CaseFolding.fold("ﬁne") == "fine")
        #expect(CaseFolding.fold("Ⅻ a") == "xii a")
        #expect(CaseFolding.fold("ﬃx") == "ffix")
        // MPD's buffers hold twice the text's UTF-16 length: a step whose result is longer fails and is skipped
        // (MPD 0.24.9 finds no `i` in an album named `Ⅻ`).
        #expect(CaseFolding.fold("Ⅻ") == "Ⅻ")
        #expect(CaseFolding.fold("ﬃ") == "ﬃ")
        #expect(CaseFolding.fold("Don\u{2019}t \u{201C}Stop\u{201D}") == "don't \"stop\"")
        #expect(CaseFolding.fold("a\u{301}") == "á")
        #expect(CaseFolding.fold("ROCK") == "rock")
    }
}

/// Small `find`/`search` results are kept while the database is unchanged, and read again after any commit.
@Suite struct QueryResultCacheTests {
    @Test func resultsAreKeptUntilTheDatabaseChanges() async throws {
        let fixture = try QueryFixture()
        try fixture.add("a/1.flac", [(.artist, "Alpha"), (.title, "One")])
        try fixture.add("b/2.flac", [(.artist, "Beta"), (.title, "Two")])
        let queries = fixture.queries
        let query = FilterQuery(expression: .tag(.tag(.artist), StringMatch("Alpha")))
        #expect(queries.cachedSongs(matching: query) == nil)
        let collected = Mutex<[String]>([])
        try await queries.visitSongs(matching: query) { song in
            collected.withLock { $0.append(song.uri) }
            return true
        }
        #expect(collected.withLock { $0 } == ["a/1.flac"])
        #expect(queries.cachedSongs(matching: query)?.map(\.uri) == ["a/1.flac"])
        // A different query is not answered from another's result.
        var other = query
        other.window = RangeArgument(start: 1, end: nil)
        #expect(queries.cachedSongs(matching: other) == nil)
        // A new song by the artist: the kept result is gone, the next search sees the song.
        try fixture.add("c/3.flac", [(.artist, "Alpha"), (.title, "Three")])
        #expect(queries.cachedSongs(matching: query) == nil)
        #expect(try await queries.songs(matching: query).map(\.uri).sorted() == ["a/1.flac", "c/3.flac"])
    }

    /// `list` answers too; `list file` (all the URIs) is never kept.
    @Test func listAnswersAreKeptUntilTheDatabaseChanges() async throws {
        let fixture = try QueryFixture()
        try fixture.add("a/1.flac", [(.album, "One"), (.albumArtist, "Alpha")])
        try fixture.add("b/2.flac", [(.album, "Two"), (.albumArtist, "Beta")])
        let queries = fixture.queries
        let query = ListQuery(tag: .album, groups: [.albumArtist])
        #expect(queries.cachedList(query) == nil)
        #expect(try await queries.list(query) == [["Alpha", "One"], ["Beta", "Two"]])
        #expect(queries.cachedList(query) == [["Alpha", "One"], ["Beta", "Two"]])
        #expect(queries.cachedList(ListQuery(tag: .album)) == nil)
        _ = try await queries.list(ListQuery(tag: nil))
        #expect(queries.cachedList(ListQuery(tag: nil)) == nil)
        try fixture.add("c/3.flac", [(.album, "Three"), (.albumArtist, "Alpha")])
        #expect(queries.cachedList(query) == nil)
        #expect(try await queries.list(query) == [["Alpha", "One"], ["Alpha", "Three"], ["Beta", "Two"]])
    }
}
