extension Lyrics {
    /// The lyrics as LRC text, which `LRC.parse` reads back to the same lines, words and translations (times
    /// rounded to centiseconds).
    ///
    /// Synced: the metadata tags first (`[key:value]`, sorted by key; `offset` is left out because the times are
    /// already offset), then one `[mm:ss.xx]text` line per line, each ending in "\n". Minutes are not wrapped into
    /// hours (`[61:02.50]`): every LRC reader understands minutes above 59, few understand hours. A line with words
    /// writes an enhanced (A2) stamp before each word (`[00:12.00]<00:12.00>Hel<00:12.40>lo`), and a stamp with no
    /// text after a word whose end is not the next word's start (`…<00:13.10>world<00:14.00>`), so durations
    /// survive. A translation follows its line as a second line with the same stamp, the convention of NetEase's
    /// clients and most players; romanizations are not written, as LRC has no common convention for them.
    /// Line breaks inside a text or tag become spaces.
    ///
    /// Unsynced: the text as is (empty when there is none).
    public func lrc() -> String {
        guard isSynced else { return text ?? "" }
        var output = ""
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) where key != "offset" {
            output += "[\(Self.singleLine(key)):\(Self.singleLine(value))]\n"
        }
        for line in lines {
            let stamp = "[\(LRCTimestamp.format(line.start))]"
            output += stamp + Self.lrcContent(of: line) + "\n"
            if let translation = line.translation, !translation.isEmpty {
                output += stamp + Self.singleLine(translation) + "\n"
            }
        }
        return output
    }

    /// The lyrics as plain text: each line's text, followed on the next line by its translation when it has one,
    /// joined by "\n" (pause lines stay as empty lines); unsynced, the text (empty when there is none).
    public func plainText() -> String {
        guard isSynced else { return text ?? "" }
        return lines.flatMap { line in
            [line.text] + [line.translation].compactMap { $0 }.filter { !$0.isEmpty }
        }.joined(separator: "\n")
    }

    /// A line's text after its stamp, with word stamps when it has words.
    private static func lrcContent(of line: Line) -> String {
        guard let words = line.words, !words.isEmpty else { return singleLine(line.text) }
        var content = ""
        for (index, word) in words.enumerated() {
            content += "<\(LRCTimestamp.format(word.start))>" + singleLine(word.text)
            guard let duration = word.duration else { continue }
            let (sum, overflow) = word.start.addingReportingOverflow(duration)
            let end = LRCTimestamp.format(overflow ? Int.max : sum)
            let nextStart = words.indices.contains(index + 1) ? LRCTimestamp.format(words[index + 1].start) : nil
            if end != nextStart {
                content += "<\(end)>"
            }
        }
        return content
    }

    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}
