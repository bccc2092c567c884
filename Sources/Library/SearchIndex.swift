import Foundation
import GRDB
import GRDBSQLite
import MPDProtocol
import Synchronization

/// The search index: an SQLite FTS5 table with one row per song (rowid = `song.id`) whose text is the song's folded
/// tag values, tokenized into every 3-character sequence of each value (`NgramTokenizer`).
///
/// It answers "which songs may contain this folded text" for a needle of 3 characters or more: every value that
/// contains the needle contains each of its 3-character sequences, so the `AND` of (up to 6 of) them names a
/// superset (the sequences may lie apart, or in different values). A filter keeps its exact test
/// (`instr(value_folded, needle)`, MPD's rule) and the index only decides which songs it reads: the results are the
/// scan's, byte for byte, in less time. Shorter needles read the indexed texts (one row per song) instead of the tag
/// rows (`textContains`).
/// `detail=none` keeps no positions; nothing here needs them.
///
/// The index is brought up to date in the background, not by the writers: an update or a remote sync only notes the
/// songs it wrote in `search_pending` (one append per song), and `LibraryIndexer` tokenizes them after the job (FTS5
/// would otherwise double an update's time). Until then a query reads the pending songs too (`candidates`), so
/// results never depend on how far the indexer got. A trigger removes a song's row with the song.
enum SearchIndex {
    static let table = "song_search"
    static let pending = "search_pending"
    /// Between two values of a song's text. Tag values hold no control characters (MPD's `FixTagString` made them
    /// spaces), so no sequence a client can search for crosses it.
    static let separator: Character = "\u{1}"

    static func register(_ db: Database) {
        db.add(tokenizer: NgramTokenizer.self)
    }

    /// The tables, empty; every song is pending.
    static func create(_ db: Database) throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE \(table) USING fts5(text, tokenize='\(NgramTokenizer.name)', detail='none');
            CREATE TABLE \(pending) (song_id INTEGER PRIMARY KEY);
            CREATE TRIGGER song_search_delete AFTER DELETE ON song BEGIN
                DELETE FROM \(table) WHERE rowid = old.id;
                DELETE FROM \(pending) WHERE song_id = old.id;
            END;
            INSERT INTO \(pending) (song_id) SELECT id FROM song;
            """)
    }

    /// Notes a song whose tags were written (by a writer, inside its transaction).
    static let noteSQL = "INSERT OR IGNORE INTO \(pending) (song_id) VALUES (?)"

    /// The songs one indexing transaction takes: a few tens of milliseconds of the writer.
    static let chunk = 4000

    static func hasPending(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(pending))") ?? false
    }

    /// Indexes up to `chunk` pending songs; false when none was pending.
    static func indexPending(_ db: Database) throws -> Bool {
        let ids = try Int64.fetchAll(db, sql: "SELECT song_id FROM \(pending) ORDER BY song_id LIMIT \(chunk)")
        guard let last = ids.last else { return false }
        try index(db, songs: "SELECT song_id FROM \(pending) WHERE song_id BETWEEN ? AND ?", [ids[0], last])
        return true
    }

    /// Writes a song's row again from its tag rows, at once.
    static func reindex(_ db: Database, id: Int64) throws {
        try index(db, songs: "SELECT ?", [id])
    }

    /// Writes the rows of the songs `songs` (a `SELECT` of ids taking `arguments`) from their tag rows, and takes
    /// them off the pending list.
    private static func index(_ db: Database, songs: String, _ arguments: StatementArguments) throws {
        try db.execute(sql: "DELETE FROM \(table) WHERE rowid IN (\(songs))", arguments: arguments)
        try db.execute(sql: """
            INSERT INTO \(table) (rowid, text)
                SELECT song_id, group_concat(value_folded, char(1)) FROM song_tag WHERE song_id IN (\(songs))
                GROUP BY song_id
            """, arguments: arguments)
        try db.execute(sql: "DELETE FROM \(pending) WHERE song_id IN (\(songs))", arguments: arguments)
    }

    /// The most 3-character sequences one query asks for: a long needle's matches are few once a handful agree, and
    /// every further sequence is one more posting list to read.
    static let maximumTokens = 6

    /// The FTS5 query for the songs whose text may contain `folded`, or nil when the index cannot help (a needle
    /// shorter than a sequence; one with the separator in it would be missed).
    static func matchQuery(_ folded: String) -> String? {
        guard !folded.contains(separator) else { return nil }
        let scalars = Array(folded.unicodeScalars)
        let length = NgramTokenizer.length
        guard scalars.count >= length else { return nil }
        let last = scalars.count - length
        let count = min(maximumTokens, last + 1)
        var starts: [Int] = []
        for k in 0..<count {
            // Evenly spread from the first sequence to the last.
            let start = count == 1 ? 0 : k * last / (count - 1)
            if starts.last != start { starts.append(start) }
        }
        return starts.map { start in
            var token = String.UnicodeScalarView()
            token.append(contentsOf: scalars[start..<(start + length)])
            return "\"" + String(token).replacing("\"", with: "\"\"") + "\""
        }.joined(separator: " AND ")
    }

    /// The songs a case-folded match on `folded` can be true for, as SQL on `s.id`, or nil when the index cannot tell
    /// (an empty needle, one with the separator).
    static func candidates(_ folded: String) -> SQL? {
        guard !folded.isEmpty, !folded.contains(separator) else { return nil }
        guard let query = matchQuery(folded) else { return "(" + textContains(folded) + " OR " + pendingSong + ")" }
        return "(s.id IN (SELECT rowid FROM \(sql: table) WHERE \(sql: table) MATCH \(query)) OR " + pendingSong + ")"
    }

    /// The songs whose indexed text contains `folded`: for a needle too short for the sequences, one row per song is
    /// read instead of every tag row (at 100k songs 27 ms against 110). Since a needle holds no separator, it lies
    /// inside one value: for `contains` on any tag this is the exact answer for every song that is not pending.
    static func textContains(_ folded: String) -> SQL {
        // FTS5 keeps the text in its `%_content` table (column `c0`): read directly, without the virtual table.
        "s.id IN (SELECT id FROM \(sql: table)_content WHERE instr(c0, \(folded)) > 0)"
    }

    /// Whether a needle is too short for the sequences (`textContains` then).
    static func isShort(_ folded: String) -> Bool { folded.unicodeScalars.count < NgramTokenizer.length }

    /// The songs written since the index last caught up.
    static let pendingSong: SQL = "s.id IN (SELECT song_id FROM \(sql: pending))"
}

/// FTS5 tokenizer `mpd_trigram`. For a document: every sequence of three Unicode scalars inside each value (values
/// are separated by U+0001), as stored (the text is already folded). For a query: the quoted string as one token, since
/// `SearchIndex.matchQuery` already cut the needle into sequences. (FTS5's own `trigram` tokenizer would join values.)
final class NgramTokenizer: FTS5CustomTokenizer {
    static let name = "mpd_trigram"
    static let length = 3

    init(db: Database, arguments: [String]) {}

    func tokenize(context: UnsafeMutableRawPointer?, tokenization: FTS5Tokenization, pText: UnsafePointer<CChar>?,
                  nText: CInt, tokenCallback: @escaping FTS5TokenCallback) -> CInt {
        guard let pText, nText > 0 else { return SQLITE_OK }
        let count = Int(nText)
        if tokenization.contains(.query) {
            return tokenCallback(context, 0, pText, nText, 0, nText)
        }
        return pText.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            // The starts of the last three scalars of the current value, oldest first.
            var starts = (0, 0, 0)
            var known = 0
            var index = 0
            while index <= count {
                let atEnd = index == count || bytes[index] == 0x01
                if (atEnd || bytes[index] & 0xC0 != 0x80) && known >= Self.length {
                    // The sequence that ends just before `index`.
                    let code = tokenCallback(context, 0, pText + starts.0, CInt(index - starts.0), CInt(starts.0),
                                             CInt(index))
                    if code != SQLITE_OK { return code }
                }
                if index == count { break }
                if bytes[index] == 0x01 {
                    known = 0
                } else if bytes[index] & 0xC0 != 0x80 {
                    starts = (starts.1, starts.2, index)
                    known += 1
                }
                index += 1
            }
            return SQLITE_OK
        }
    }
}
