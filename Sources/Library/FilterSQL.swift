import Foundation
import GRDB
import MPDProtocol
import ServerPorts
import Synchronization

/// Translates a `FilterExpression` into an SQL condition on `song AS s` with MPD's matching rules
/// (`src/song/TagSongFilter.cxx`, `StringFilter.cxx`, `UriSongFilter`, `BaseSongFilter` …); see the rules listed on
/// `FilterExpression`. Every condition is 0 or 1, never NULL, so `NOT` is always the complement.
enum FilterSQL {
    /// A filter in SQL: the condition on `s`, and the common table expressions (`fN(id) AS (…)`, the ids of the songs
    /// a deep part of the filter matches) it refers to, which a statement declares in its `WITH` clause.
    struct Translation {
        var tables: [SQL] = []
        var condition: SQL = "1"

        /// `WITH f1(id) AS (…), … ` before a statement that uses the condition, or nothing.
        var withClause: SQL { tables.isEmpty ? "" : "WITH " + tables.joined(separator: ", ") + " " }
    }

    /// The levels of `NOT` and `AND` one condition nests before a deeper part becomes a table of its own: SQLite's
    /// parser gives up on an expression a few dozen levels deep ("parser stack overflow"), MPD takes any depth.
    static let nestingPerTable = 12

    /// The filter, simplified as MPD does before matching (`FilterExpression.optimized`), in SQL.
    static func translate(_ expression: FilterExpression) -> Translation {
        var translation = Translation()
        translation.condition = condition(expression.optimized(), depth: 0, tables: &translation.tables)
        return translation
    }

    private static func condition(_ expression: FilterExpression, depth: Int, tables: inout [SQL]) -> SQL {
        switch expression {
        case .and, .not:
            guard depth < nestingPerTable else {
                let inner = condition(expression, depth: 0, tables: &tables)
                let name = "f\(tables.count + 1)"
                tables.append(SQL(sql: "\(name)(id) AS (SELECT s.id FROM song s WHERE ") + inner + ")")
                return SQL(sql: "s.id IN \(name)")
            }
        default:
            break
        }
        switch expression {
        case .and(let items):
            guard !items.isEmpty else { return "1" }
            return "(" + items.map { condition($0, depth: depth + 1, tables: &tables) }.joined(separator: " AND ") + ")"
        case .not(let inner):
            return "NOT (" + condition(inner, depth: depth + 1, tables: &tables) + ")"
        case .tag(.tag(let tag), let match):
            return tagCondition(tag, match)
        case .tag(.any, let match):
            let sql: SQL = indexed(match, [nil])
                ?? "s.id IN (SELECT song_id FROM song_tag WHERE \(valueCondition(match)))"
            return match.negated ? "NOT (" + sql + ")" : sql
        case .tag(.file, let match):
            let sql = stringCondition(match, raw: "s.uri", folded: "mpd_fold(s.uri)")
            return match.negated ? "NOT (" + sql + ")" : sql
        case .base(let directory):
            return baseCondition(directory)
        case .modifiedSince(let time):
            return "coalesce(s.last_modified >= \(time), 0)"
        case .addedSince(let time):
            return "coalesce(s.added >= \(time), 0)"
        case .audioFormat(let format):
            return "mpd_audio_format(\(Int64(format.sampleRate)), \(format.sampleFormat?.rawValue), \(Int64(format.channels)), s.audio_format)"
        case .priority(let atLeast):
            // Database songs have priority 0.
            return atLeast <= 0 ? "1" : "0"
        case .nothing:
            return "0"
        }
    }

    /// Whether SQLite finds the matches of `expression` (optimized) through an index (a tag value, the search index,
    /// a URI) rather than by testing song after song. A scan in walk order that stops at a window's end is only
    /// worth it when it does not (a negation, times, formats, regular expressions).
    static func narrows(_ expression: FilterExpression) -> Bool {
        switch expression {
        case .and(let items): items.contains(where: narrows)
        case .tag(.tag, let match), .tag(.any, let match):
            !match.negated && match.kind != .regex && !match.value.isEmpty
        case .tag(.file, let match): !match.negated && match.kind == .equals
        case .base(let directory): !directory.isEmpty
        case .not, .modifiedSince, .addedSince, .audioFormat, .priority, .nothing: false
        }
    }

    /// `uri_is_child_or_same(base, uri)`. The range test on the unique `uri` index is bytewise, as SQLite compares
    /// TEXT with memcmp: every URI that starts with `dir/` lies in [`dir/`, `dir0`).
    static func baseCondition(_ directory: String) -> SQL {
        // `(base "")` is the whole database (checked against Debian's MPD 0.23.12).
        guard !directory.isEmpty else { return "1" }
        let lower = directory + "/"
        let upper = directory + "0"
        // Remote songs (the synced NetEase collection) lie in their virtual directories, not below a URI path.
        return """
            (s.uri = \(directory) OR (s.uri >= \(lower) AND s.uri < \(upper)) OR s.id IN (SELECT song_id FROM remote_entry \
            WHERE directory = \(directory) OR (directory >= \(lower) AND directory < \(upper))))
            """
    }

    /// `TagSongFilter::Match`: the first tag of the chain the song has decides; if it has none, an empty value
    /// matches. Negation inverts the whole result.
    static func tagCondition(_ tag: TagName, _ match: StringMatch) -> SQL {
        let chain = tag.filterChain
        let condition = valueCondition(match)
        // A case-folded comparison reads `value_folded`, which only the rows hold: one pass over the table beats
        // the `(tag, value)` index plus a lookup by key per row, so `+tag` keeps SQLite off the index.
        let tagColumn = match.foldCase && match.kind != .regex ? "+tag" : "tag"
        func matching(_ t: TagName) -> SQL {
            "s.id IN (SELECT song_id FROM song_tag WHERE \(sql: tagColumn) = \(t.rawValue) AND \(condition))"
        }
        let sql: SQL
        if let prefiltered = indexed(match, chain) {
            sql = prefiltered
        } else if chain.count == 1, !match.value.isEmpty {
            sql = matching(tag)
        } else {
            var cases: SQL = "CASE"
            for t in chain {
                cases = cases + " WHEN s.id IN (SELECT song_id FROM song_tag WHERE tag = \(t.rawValue)) THEN " + matching(t)
            }
            sql = cases + " ELSE \(match.value.isEmpty ? 1 : 0) END"
        }
        return match.negated ? "NOT (" + sql + ")" : sql
    }

    /// A case-folded match through the search index (`SearchIndex`): the songs the index names, each tested
    /// exactly as the scan would (`chain` as in `tagCondition`; `[nil]` is any tag), song by song by key. Nil when
    /// the index cannot narrow the match (a regular expression, a case-sensitive or empty value).
    static func indexed(_ match: StringMatch, _ chain: [TagName?]) -> SQL? {
        let folded = CaseFolding.fold(match.value)
        guard match.foldCase, match.kind != .regex, let candidates = SearchIndex.candidates(folded) else { return nil }
        func has(_ tag: TagName?, _ condition: SQL) -> SQL {
            // `+tag`: by the song's key, never through the `(tag, value)` index (a scan of the whole tag per song).
            let tagTest: SQL = tag.map { "+tag = \($0.rawValue) AND " } ?? ""
            return "EXISTS (SELECT 1 FROM song_tag WHERE song_id = s.id AND " + tagTest + condition + ")"
        }
        var exact = has(chain[0], valueCondition(match))
        if chain.count > 1 {
            // The first tag of the chain the song has decides; a song with none of them cannot match a non-empty
            // value.
            exact = "CASE"
            for tag in chain {
                exact = exact + " WHEN " + has(tag, "1") + " THEN " + has(tag, valueCondition(match))
            }
            exact = exact + " ELSE 0 END"
        }
        if chain == [nil], match.kind == .contains, SearchIndex.isShort(folded) {
            // The indexed text answers exactly for the songs it is up to date for (`search any "e"` would otherwise
            // test nearly every song again by key).
            return "((" + SearchIndex.textContains(folded) + " AND NOT " + SearchIndex.pendingSong + ") OR ("
                + SearchIndex.pendingSong + " AND " + exact + "))"
        }
        return "(" + candidates + " AND " + exact + ")"
    }

    /// The comparison on `song_tag.value` (or `value_folded`), ignoring negation.
    static func valueCondition(_ match: StringMatch) -> SQL {
        stringCondition(match, raw: "value", folded: "value_folded")
    }

    static func stringCondition(_ match: StringMatch, raw: String, folded: String) -> SQL {
        if match.kind == .regex {
            return "mpd_regex(\(match.value), \(match.foldCase ? 1 : 0), \(sql: raw))"
        }
        let column = match.foldCase ? folded : raw
        let needle = match.foldCase ? CaseFolding.fold(match.value) : match.value
        switch match.kind {
        case .equals: return "\(sql: column) = \(needle)"
        case .contains: return "instr(\(sql: column), \(needle)) > 0"
        case .startsWith: return "instr(\(sql: column), \(needle)) = 1"
        case .regex: fatalError("handled above")
        }
    }

    /// The top-level `base` MPD uses as the selection's URI (`SongFilter::GetBase`): the first `base` among the
    /// items of the outermost `AND` (nested `AND`s are flattened by MPD's optimiser).
    static func selectionBase(_ expression: FilterExpression) -> String? {
        switch expression {
        case .base(let directory): return directory
        case .and(let items):
            for item in items { if let base = selectionBase(item) { return base } }
            return nil
        default: return nil
        }
    }
}

/// The SQL functions the translated filters call. They are registered on each connection before a query.
enum FilterFunctions {
    /// A compiled `=~` pattern: PCRE2 as MPD uses it, or `NSRegularExpression` when libpcre2 is missing.
    final class CompiledRegex: @unchecked Sendable {
        private let pcre: PCRE2.Code?
        private let regex: NSRegularExpression?

        init(pcre: PCRE2.Code) {
            self.pcre = pcre
            regex = nil
        }

        init(_ regex: NSRegularExpression) {
            pcre = nil
            self.regex = regex
        }

        func matches(_ value: String) -> Bool {
            if let pcre { return pcre.matches(value) }
            guard let regex else { return false }
            return regex.firstMatch(in: value, options: [], range: NSRange(value.startIndex..<value.endIndex, in: value)) != nil
        }
    }

    private static let cache = Mutex<[String: CompiledRegex]>([:])

    /// Compiles like MPD's `UniqueRegex::Compile` (`PCRE2_DOTALL | PCRE2_NO_AUTO_CAPTURE`, plus `PCRE2_CASELESS`).
    static func compile(_ pattern: String, caseless: Bool) throws(PortError) -> CompiledRegex {
        let key = (caseless ? "i" : "c") + pattern
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let compiled: CompiledRegex
        if let pcre = PCRE2.shared {
            switch pcre.compile(pattern, caseless: caseless) {
            case .success(let code): compiled = CompiledRegex(pcre: code)
            case .failure(let error): throw PortError.invalid(error.message)
            }
        } else {
            var options: NSRegularExpression.Options = [.dotMatchesLineSeparators]
            if caseless { options.insert(.caseInsensitive) }
            do {
                compiled = CompiledRegex(try NSRegularExpression(pattern: pattern, options: options))
            } catch {
                throw PortError.invalid("Error in regex at offset 0: invalid regular expression")
            }
        }
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = compiled
        }
        return compiled
    }

    /// MPD's check while parsing: the error text is PCRE2's own when libpcre2 is available.
    static func validate(_ pattern: String, caseless: Bool) throws(PortError) {
        _ = try compile(pattern, caseless: caseless)
    }

    static let regex = DatabaseFunction("mpd_regex", argumentCount: 3, pure: true) { values in
        guard let pattern = String.fromDatabaseValue(values[0]),
              let value = String.fromDatabaseValue(values[2]) else { return false }
        let caseless = (Int.fromDatabaseValue(values[1]) ?? 0) != 0
        return try compile(pattern, caseless: caseless).matches(value)
    }

    static let fold = DatabaseFunction("mpd_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(CaseFolding.fold)
    }

    /// `AudioFormat::MatchMask` against a stored `rate:bits:channels` (or `dsdN:channels`) string.
    static let audioFormat = DatabaseFunction("mpd_audio_format", argumentCount: 4, pure: true) { values in
        guard let stored = String.fromDatabaseValue(values[3]) else { return false }
        let rate = UInt32(Int.fromDatabaseValue(values[0]) ?? 0)
        let format = String.fromDatabaseValue(values[1]).flatMap(AudioFormatMatch.SampleFormat.init(rawValue:))
        let channels = UInt8(Int.fromDatabaseValue(values[2]) ?? 0)
        guard let parsed = parseAudioFormat(stored) else { return false }
        return AudioFormatMatch(sampleRate: rate, sampleFormat: format, channels: channels)
            .matches(sampleRate: parsed.rate, sampleFormat: parsed.format, channels: parsed.channels)
    }

    static func parseAudioFormat(_ text: String) -> (rate: UInt32, format: AudioFormatMatch.SampleFormat, channels: UInt8)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        if parts.count == 2, parts[0].hasPrefix("dsd"), let n = UInt32(parts[0].dropFirst(3)), let c = UInt8(parts[1]) {
            return (n * 44100 / 8, .dsd, c)
        }
        guard parts.count == 3, let rate = UInt32(parts[0]), let channels = UInt8(parts[2]) else { return nil }
        let bits = parts[1] == "24_3" ? "24" : String(parts[1])
        guard let format = AudioFormatMatch.SampleFormat(rawValue: bits) else { return nil }
        return (rate, format, channels)
    }

    static func register(_ db: Database) {
        db.add(function: regex)
        db.add(function: fold)
        db.add(function: audioFormat)
    }
}
