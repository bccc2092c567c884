import Logging
import MPDProtocol
import PlayerCore
import ServerPorts

/// `search`, `searchadd` and `searchaddpl` with the online catalogue (`search_online`): the local matches first,
/// exactly as without it, then the catalogue's songs for the same words that are not already among them; `window`
/// applies to the whole list. `find` and everything that is not a plain text search stay local. The catalogue is
/// asked while the database is read, so a slow catalogue costs at most its own timeout. When the catalogue fails
/// (NetEase unreachable, a login needed, rate limited), the answer is the local matches, as MPD's, even when there
/// are none: a search only *also* asks NetEase, so it must not fail where MPD would not (`mpc searchadd` in a
/// script without network); the failure goes to the log. Commands that name NetEase themselves answer its ACK.
enum OnlineSearch {
    /// How many catalogue songs a search appends at most (one page of NetEase's own search).
    static let limit = 30


    /// The words to send for a filter, and whether its catalogue answers must still be matched against it:
    /// only positive substring matches on `any`, Title, Artist, Album (or AlbumArtist) qualify. `any` is left to
    /// the catalogue (it also matches aliases, translations and pinyin); tag conditions are checked.
    static func keywords(_ expression: FilterExpression) -> (words: String, checkTags: Bool)? {
        let terms: [FilterExpression]
        switch expression {
        case .and(let parts): terms = parts
        default: terms = [expression]
        }
        var words: [String] = []
        var checkTags = false
        for term in terms {
            guard case .tag(let selector, let match) = term, match.kind == .contains, !match.negated, match.foldCase
            else { return nil }
            switch selector {
            case .any: break
            case .tag(let tag) where [.title, .artist, .album, .albumArtist].contains(tag): checkTags = true
            default: return nil
            }
            let word = match.value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            if !word.isEmpty { words.append(word) }
        }
        return words.isEmpty ? nil : (words.joined(separator: " "), checkTags)
    }

    /// Whether `songs` asks the catalogue: for the search family, when it searches online and the filter is a text
    /// search.
    static func asksCatalog(_ query: FilterQuery, command: FilterCommand, catalog: (any RemoteCatalog)?) -> Bool {
        guard let catalog, catalog.searchesOnline, command != .find, command != .findadd else { return false }
        return keywords(query.expression) != nil
    }

    /// The matches of `query` for `command`: local ones, then (when `asksCatalog`) the catalogue's, windowed
    /// together.
    static func songs(_ query: FilterQuery, command: FilterCommand, queries: any DatabaseQueries,
                      catalog: (any RemoteCatalog)?, logger: Logger) async throws -> [Song] {
        guard let catalog, asksCatalog(query, command: command, catalog: catalog),
              let (words, checkTags) = keywords(query.expression)
        else { return try await queries.songs(matching: query) }
        var local = query
        local.window = nil
        async let online = catalog.search(keywords: words, limit: limit)
        var songs = try await queries.songs(matching: local)
        // A window the local matches already fill needs nothing from the catalogue.
        if let end = query.window?.end, songs.count >= end {
            _ = try? await online
        } else {
            do {
                songs += distinct(try await online, from: songs,
                                  matcher: checkTags ? SongMatcher(query.expression) : nil)
            } catch {
                let reason = ACKError.from(error).message
                logger.warning("\(command.rawValue) \"\(words)\": answered from the local library only (\(reason))")
            }
        }
        if let window = query.window {
            let start = min(window.start, songs.count)
            let end = min(window.end ?? songs.count, songs.count)
            songs = start < end ? Array(songs[start..<end]) : []
        }
        return songs
    }

    /// Catalogue songs that are not the same as a local match: the same URI (a synced song), or the same title
    /// and artist (a local file of it).
    static func distinct(_ online: [Song], from local: [Song], matcher: SongMatcher?) -> [Song] {
        func key(_ song: Song) -> String? {
            let title = song.packedTags.first(named: "Title")
            let artist = song.packedTags.first(named: "Artist")
            guard let title, let artist else { return nil }
            return (title + "\u{0}" + artist).lowercased()
        }
        var seen = Set(local.map(\.uri))
        var seenKeys = Set(local.compactMap(key))
        var result: [Song] = []
        for song in online {
            guard !seen.contains(song.uri), matcher?.matches(song) ?? true else { continue }
            if let key = key(song) {
                guard !seenKeys.contains(key) else { continue }
                seenKeys.insert(key)
            }
            seen.insert(song.uri)
            result.append(song)
        }
        return result
    }
}
