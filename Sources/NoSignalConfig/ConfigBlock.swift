/// A `name { … }` section exactly as written, kept raw because its keys belong to whoever consumes it (an
/// `audio_output` block means something different for each output plugin). File and line numbers travel with it
/// so the consumer can still report errors as `file:line: problem`.
public struct ConfigBlock: Sendable, Equatable {
    /// One `key "value"` line inside the block.
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: String
        public var line: Int

        public init(key: String, value: String, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    public var name: String
    /// The file the block was read from (an included file, possibly), for error messages.
    public var file: String
    /// The line of `name {`.
    public var line: Int
    /// In file order. Keys are unique: MPD rejects a key given twice in one block.
    public var values: [Entry]

    public init(name: String, file: String, line: Int, values: [Entry] = []) {
        self.name = name
        self.file = file
        self.line = line
        self.values = values
    }

    public func entry(_ key: String) -> Entry? {
        values.first { $0.key == key }
    }

    public subscript(key: String) -> String? {
        entry(key)?.value
    }

    /// An error located at `key`'s line when the block has that key, else at the block's own line, worded the
    /// way this module words value errors (`"device": …`), so consumers' errors look like the parser's.
    public func error(_ message: String, key: String? = nil) -> ConfigError {
        if let key, let entry = entry(key) {
            return ConfigError(file: file, line: entry.line, message: "\"\(key)\": \(message)")
        }
        return ConfigError(file: file, line: line, message: "\"\(name)\": \(message)")
    }
}
