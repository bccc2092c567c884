import Foundation
import Logging
import MPDProtocol
@testable import MPDServer
import PlayerCore
import ServerPorts
import Synchronization
import Testing

/// `search` with the online catalogue: which filters are sent as words, and how the catalogue's answers join the
/// local ones.
@Suite struct OnlineSearchTests {
    /// The words of a filter as `search` (case-folding) parses it.
    func keywords(_ arguments: [String], foldCase: Bool = true) throws -> (words: String, checkTags: Bool)? {
        OnlineSearch.keywords(try FilterParser.parse(arguments: arguments, foldCase: foldCase))
    }

    func expect(_ arguments: [String], _ words: String, checkTags: Bool,
                sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try keywords(arguments)
        #expect(result?.words == words, sourceLocation: sourceLocation)
        #expect(result?.checkTags == checkTags, sourceLocation: sourceLocation)
    }

    // MARK: keywords

    @Test func textSearchesBecomeWords() throws {
        try expect(["any", "晴天"], "晴天", checkTags: false)
        try expect(["title", "Hello World"], "Hello World", checkTags: true)
        try expect(["artist", "Sigur Ósk"], "Sigur Ósk", checkTags: true)
        try expect(["album", "Norðurljós"], "Norðurljós", checkTags: true)
        try expect(["albumartist", "林夕雨"], "林夕雨", checkTags: true)
        try expect(["(any contains 'night')"], "night", checkTags: false)
        try expect(["(Title contains 'night')"], "night", checkTags: true)
        try expect(["(Artist contains_ci 'night')"], "night", checkTags: true)
    }

    @Test func spacesAreCollapsed() throws {
        try expect(["any", "  late   night  mix "], "late night mix", checkTags: false)
    }

    @Test func twoTermsAreJoined() throws {
        try expect(["any", "rain", "artist", "星野"], "rain 星野", checkTags: true)
        try expect(["(any contains 'rain')", "(any contains 'city')"], "rain city", checkTags: false)
        try expect(["((Title contains 'rain') AND (Album contains 'city'))"], "rain city", checkTags: true)
        // An empty term adds nothing.
        try expect(["any", "", "title", "x"], "x", checkTags: true)
    }

    @Test func otherFiltersStayLocal() throws {
        for arguments in [
            ["(Title == 'x')"], ["(Title eq_ci 'x')"], ["(Title != 'x')"], ["(Title !contains 'x')"],
            ["(!(Title contains 'x'))"], ["(Title =~ 'x.*')"], ["(Title starts_with 'x')"],
            ["(Title contains_cs 'x')"], ["(base 'Music')"], ["base", "Music"], ["file", "x"], ["(file contains 'x')"],
            ["(modified-since '0')"], ["modified-since", "0"], ["genre", "rock"], ["(Date contains '2010')"],
            ["any", ""], ["any", "   "],
            ["title", "x", "base", "Music"], ["(any contains 'x')", "(Title == 'y')"],
        ] {
            #expect(try keywords(arguments) == nil, "\(arguments)")
        }
    }

    /// `find` compares whole values, case-sensitively: never sent to the catalogue.
    @Test func findStyleEqualsIsNotASearch() throws {
        #expect(try keywords(["title", "x"], foldCase: false) == nil)
        #expect(try keywords(["any", "x"], foldCase: false) == nil)
        #expect(try keywords(["(Title contains 'x')"], foldCase: false) == nil)
    }

    // MARK: distinct

    static func song(_ uri: String, _ title: String?, _ artist: String?) -> Song {
        var tags: [Song.Tag] = []
        if let title { tags.append(.init("Title", title)) }
        if let artist { tags.append(.init("Artist", artist)) }
        return Song(uri: uri, tags: tags)
    }

    @Test func distinctDropsSongsAlreadyFound() {
        let local = [Self.song("netease://song/1", "Synced", "A"), Self.song("dir/rain.flac", "Rain", "Sigur Ósk")]
        let online = [
            Self.song("netease://song/1", "Synced", "A"),  // the same URI (a synced song)
            Self.song("netease://song/2", "RAIN", "sigur ósk"),  // a local file of it, whatever the case
            Self.song("netease://song/3", "Rain", "Someone Else"),
            Self.song("netease://song/4", "Snow", "Sigur Ósk"),
        ]
        #expect(OnlineSearch.distinct(online, from: local, matcher: nil).map(\.uri)
            == ["netease://song/3", "netease://song/4"])
    }

    @Test func distinctKeepsOrderAndDropsRepeatsAmongTheOnlineSongs() {
        let online = [
            Self.song("netease://song/9", "B", "X"), Self.song("netease://song/8", "A", "X"),
            Self.song("netease://song/9", "B", "X"), Self.song("netease://song/7", "a", "x"),
            Self.song("netease://song/6", nil, "X"), Self.song("netease://song/5", nil, "X"),
            Self.song("netease://song/6", nil, nil),
        ]
        // Songs without a title or artist are only compared by URI.
        #expect(OnlineSearch.distinct(online, from: [], matcher: nil).map(\.uri)
            == ["netease://song/9", "netease://song/8", "netease://song/6", "netease://song/5"])
        #expect(OnlineSearch.distinct([], from: [Self.song("x", "A", "X")], matcher: nil).isEmpty)
    }

    @Test func distinctAppliesTheMatcher() throws {
        let online = [
            Self.song("netease://song/1", "Night Train", "A"), Self.song("netease://song/2", "Day", "Night Owls"),
            Self.song("netease://song/3", "Midnight", "B"),
        ]
        let matcher = SongMatcher(try FilterParser.parse(arguments: ["title", "night"], foldCase: true))
        #expect(OnlineSearch.distinct(online, from: [], matcher: matcher).map(\.uri)
            == ["netease://song/1", "netease://song/3"])
        // A song the matcher drops does not hide a later one with the same title and artist.
        let twice = [Self.song("netease://song/4", "Day", "X"), Self.song("netease://song/5", "Day", "X")]
        let none = SongMatcher(try FilterParser.parse(arguments: ["title", "zzz"], foldCase: true))
        #expect(OnlineSearch.distinct(twice, from: [], matcher: none).isEmpty)
    }

    // MARK: songs

    struct StubQueries: DatabaseQueries {
        let local: [Song]
        func validateRegex(_ pattern: String, caseless: Bool) throws(PortError) {}
        func songs(matching query: FilterQuery) async throws -> [Song] {
            let matcher = SongMatcher(query.expression)
            return local.filter { matcher.matches($0) }
        }
        func uris(matching expression: FilterExpression?) async throws -> [String] { local.map(\.uri) }
        func count(_ query: CountQuery) async throws -> [(group: String?, songs: Int, playtime: Int)] { [] }
        func list(_ query: ListQuery) async throws -> [[String]] { [] }
        func songExists(uri: String) async throws -> Bool { false }
    }

    final class StubCatalog: RemoteCatalog {
        let answer: [Song]
        let failure: ACKError?
        let online: Bool
        let asked = Mutex<[(String, Int)]>([])

        init(_ answer: [Song], failure: ACKError? = nil, online: Bool = true) {
            self.answer = answer
            self.failure = failure
            self.online = online
        }

        func recognizes(_ uri: String) -> Bool { false }
        func songs(for uri: String) async throws -> [Song] { [] }
        func knownSong(uri: String) async -> Song? { nil }
        var searchesOnline: Bool { online }
        func search(keywords: String, limit: Int) async throws -> [Song] {
            asked.withLock { $0.append((keywords, limit)) }
            if let failure { throw failure }
            return answer
        }
        var questions: [String] { asked.withLock { $0.map(\.0) } }
    }

    static let local = [song("a.flac", "Night Song", "Local"), song("b.flac", "Other", "Local")]
    static let remote = [song("netease://song/1", "Night Song", "Local"), song("netease://song/2", "Night Two", "R"),
                         song("netease://song/3", "Night Three", "R")]

    func run(_ arguments: [String], command: FilterCommand = .search, catalog: StubCatalog?,
             log: LogLines = LogLines()) async throws -> [Song] {
        let query = try FilterParser.parseQuery(arguments: arguments, command: command)
        return try await OnlineSearch.songs(query, command: command, queries: StubQueries(local: Self.local),
                                            catalog: catalog, logger: log.logger)
    }

    @Test func searchAppendsDistinctCatalogueSongs() async throws {
        let catalog = StubCatalog(Self.remote)
        let result = try await run(["title", "night"], catalog: catalog)
        #expect(result.map(\.uri) == ["a.flac", "netease://song/2", "netease://song/3"])
        #expect(catalog.questions == ["night"])
        #expect(catalog.asked.withLock { $0.first?.1 } == OnlineSearch.limit)
    }

    @Test func windowCoversLocalAndOnlineSongsTogether() async throws {
        let result = try await run(["title", "night", "window", "1:3"], catalog: StubCatalog(Self.remote))
        #expect(result.map(\.uri) == ["netease://song/2", "netease://song/3"])
    }

    @Test func findAndOtherFiltersDoNotAskTheCatalogue() async throws {
        for (arguments, command) in [(["title", "Night Song"], FilterCommand.find), (["(base 'x')"], .search),
                                     (["title", "Night Song"], .findadd)] {
            let catalog = StubCatalog(Self.remote)
            let result = try await run(arguments, command: command, catalog: catalog)
            #expect(catalog.questions.isEmpty, "\(arguments) \(command)")
            #expect(result.allSatisfy { !$0.uri.hasPrefix("netease://") })
        }
        let off = StubCatalog(Self.remote, online: false)
        #expect(try await run(["title", "night"], catalog: off).map(\.uri) == ["a.flac"])
        #expect(off.questions.isEmpty)
        #expect(try await run(["title", "night"], catalog: nil).map(\.uri) == ["a.flac"])
    }

    /// Clients drop every line before an ACK: a failing catalogue leaves the local matches as the answer.
    @Test func catalogueFailureKeepsTheLocalSongs() async throws {
        let failure = ACKError(.system, "NetEase: rate limited (405), try again in a minute")
        let catalog = StubCatalog(Self.remote, failure: failure)
        #expect(try await run(["any", "night"], catalog: catalog).map(\.uri) == ["a.flac"])
        #expect(catalog.questions == ["night"])
    }

    /// A search only also asks NetEase: with NetEase failing and nothing local, the answer is MPD's (no songs, OK),
    /// and the failure is logged. `mpc searchadd` in a script without network must not fail where MPD does not.
    @Test func catalogueFailureWithNoLocalMatchAnswersNothing() async throws {
        let failure = ACKError(.system, "NetEase: no answer within 15 s (timeout)")
        for command in [FilterCommand.search, .searchadd, .searchaddpl] {
            let log = LogLines()
            let songs = try await run(["any", "nothing local"], command: command,
                                      catalog: StubCatalog(Self.remote, failure: failure), log: log)
            #expect(songs.isEmpty)
            #expect(log.lines.count == 1)
            #expect(log.lines.first == "warning \(command.rawValue) \"nothing local\": answered from the local library "
                    + "only (NetEase: no answer within 15 s (timeout))")
        }
        // A window the local matches already fill does not wait for (or fail with) the catalogue.
        let log = LogLines()
        #expect(try await run(["title", "night", "window", "0:1"], catalog: StubCatalog(Self.remote, failure: failure),
                              log: log).map(\.uri) == ["a.flac"])
        #expect(log.lines.isEmpty)
    }

    /// `any` is left to the catalogue (aliases, translations); tag searches are checked again.
    @Test func anySearchesKeepWhatTheCatalogueFound() async throws {
        let unrelated = [Self.song("netease://song/9", "夜の歌", "R")]
        let any = try await run(["any", "night"], catalog: StubCatalog(unrelated))
        #expect(any.map(\.uri) == ["a.flac", "netease://song/9"])
        let title = try await run(["title", "night"], catalog: StubCatalog(unrelated))
        #expect(title.map(\.uri) == ["a.flac"])
    }
}

/// The lines a logger wrote, for checking what a failure leaves in the log.
final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []
    var lines: [String] { lock.withLock { stored } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(owner: self) }
    }

    private struct Handler: LogHandler {
        let owner: LogLines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            owner.lock.withLock { owner.stored.append("\(event.level) \(event.message)") }
        }
    }
}
