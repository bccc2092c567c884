import GRDB
import GRDBSQLite
import MPDProtocol

/// The search index: an SQLite FTS5 table with one row per song (rowid = `song.id`) whose text is the song's folded
/// tag values, tokenized into every 1-, 2- and 3-character sequence of each value (`NgramTokenizer`).
///
/// It answers "which songs may contain this folded text": a needle of one or two characters is one token; a longer
/// one is the `AND` of its 3-character sequences, which every value that contains the needle also contains. That is
/// a superset (the sequences may lie apart, or in different values), so a filter keeps its exact test
/// (`instr(value_folded, needle)`, MPD's rule) and the index only decides which songs it reads: the results are
/// the scan's, byte for byte, in less time. `detail=none` keeps no positions; nothing here needs them.
///
/// The rows follow the tag rows: `ScanWriter` and the remote sync write a song's row with its tags, and a trigger
/// removes it with the song.
enum SearchIndex {
    static let table = "song_search"
    /// Between two values of a song's text. Tag values hold no control characters (MPD's `FixTagString` made them
    /// spaces), so no sequence a client can search for crosses it.
    static let separator: Character = "\u{1}"

    static func register(_ db: Database) {
        db.add(tokenizer: NgramTokenizer.self)
    }

    /// Writes a song's row again from its tag rows.
    static func reindex(_ db: Database, id: Int64) throws {
        try db.execute(sql: deleteSQL, arguments: [id])
        try db.execute(sql: """
            INSERT INTO \(table) (rowid, text)
                SELECT song_id, group_concat(value_folded, char(1)) FROM song_tag WHERE song_id = ? GROUP BY song_id
            """, arguments: [id])
    }

    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE \(table) USING fts5(text, tokenize='\(NgramTokenizer.name)', detail='none');
            CREATE TRIGGER song_search_delete AFTER DELETE ON song BEGIN
                DELETE FROM \(table) WHERE rowid = old.id;
            END;
            INSERT INTO \(table) (rowid, text)
                SELECT song_id, group_concat(value_folded, char(1)) FROM song_tag GROUP BY song_id;
            """)
    }

    /// A song's text: its folded values, in any order.
    static func text(_ folded: some Sequence<String>) -> String {
        folded.joined(separator: String(separator))
    }

    static let insertSQL = "INSERT INTO \(table) (rowid, text) VALUES (?, ?)"
    static let deleteSQL = "DELETE FROM \(table) WHERE rowid = ?"

    /// Replaces a song's row (after its tag rows were written).
    static func write(_ db: Database, id: Int64, folded: [String], replacing: Bool) throws {
        if replacing { try db.execute(sql: deleteSQL, arguments: [id]) }
        guard !folded.isEmpty else { return }
        try db.execute(sql: insertSQL, arguments: [id, text(folded)])
    }

    /// The most 3-character sequences one query asks for: a long needle's matches are few once a handful agree, and
    /// every further sequence is one more posting list to read.
    static let maximumTokens = 6

    /// The FTS5 query for the songs whose text may contain `folded`, or nil when the index cannot help (an empty
    /// needle matches everything; one with the separator in it would be missed).
    static func matchQuery(_ folded: String) -> String? {
        guard !folded.isEmpty, !folded.contains(separator) else { return nil }
        let scalars = Array(folded.unicodeScalars)
        var tokens: [String] = []
        if scalars.count <= NgramTokenizer.longest {
            tokens = [folded]
        } else {
            let last = scalars.count - NgramTokenizer.longest
            let count = min(maximumTokens, last + 1)
            var seen = Set<Int>()
            for k in 0..<count {
                // Evenly spread from the first sequence to the last.
                let start = count == 1 ? 0 : k * last / (count - 1)
                guard seen.insert(start).inserted else { continue }
                var token = String.UnicodeScalarView()
                token.append(contentsOf: scalars[start..<(start + NgramTokenizer.longest)])
                tokens.append(String(token))
            }
        }
        return tokens.map { "\"" + $0.replacing("\"", with: "\"\"") + "\"" }.joined(separator: " AND ")
    }
}

/// FTS5 tokenizer `mpd_ngram`. For a document: every sequence of one, two and three Unicode scalars inside each
/// value (values are separated by U+0001), as stored (the text is already folded). For a query: the quoted string
/// as one token, since `SearchIndex.matchQuery` already cut the needle into sequences.
final class NgramTokenizer: FTS5CustomTokenizer {
    static let name = "mpd_ngram"
    static let longest = 3

    init(db: Database, arguments: [String]) {}

    func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                  nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let count = Int(nText)
        if tokenization.contains(.query) {
            return tokenCallback(context, 0, pText, nText, 0, nText)
        }
        return pText.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            // The starts of the last `longest` scalars of the current value, oldest first.
            var starts = (0, 0, 0)
            var known = 0
            var index = 0
            while index <= count {
                let atEnd = index == count || bytes[index] == 0x01
                let isStart = atEnd || bytes[index] & 0xC0 != 0x80
                if isStart && known > 0 {
                    // Every sequence ending just before `index`.
                    for length in 1...min(known, Self.longest) {
                        let start = length == 1 ? starts.2 : length == 2 ? starts.1 : starts.0
                        let code = tokenCallback(context, 0, pText + start, CInt(index - start), CInt(start),
                                                 CInt(index))
                        if code != SQLITE_OK { return code }
                    }
                }
                if index == count { break }
                if bytes[index] == 0x01 {
                    known = 0
                } else if isStart {
                    starts = (starts.1, starts.2, index)
                    known += 1
                }
                index += 1
            }
            return SQLITE_OK
        }
    }
}
