import Foundation

/// One effective `name "value"` line, with where it came from so typed validation can still say `file:line`.
struct OptionValue: Equatable, Sendable {
    var value: String
    var file: String
    var line: Int
}

/// The syntax of the whole file tree (the file and everything it includes), before any value is interpreted.
/// MPD reads everything first and validates values only when a subsystem asks for them; doing the same means a
/// value that a later line overrides is never validated, exactly as in MPD.
struct ParsedConfigFile: Equatable, Sendable {
    /// For a non-repeatable option only the last occurrence is kept (MPD ≥ 0.21.19: "allow overriding
    /// top-level settings in includes"). For a repeatable one, every occurrence in order; a bare name without a
    /// value clears the list (MPD 0.24).
    var options: [String: [OptionValue]] = [:]
    var blocks: [String: [ConfigBlock]] = [:]
    /// One line per occurrence of something MPD knows and NoSignal ignores.
    var warnings: [String] = []
}

/// Reads MPD's configuration syntax (`src/config/File.cxx`): `name "value"` lines, `name {` … `}` blocks of
/// `key "value"` lines, `#` comments, and `include` / `include_optional` (relative to the including file, with
/// `*` and `?` wildcards in the last path component, matches read in byte order).
struct ConfigFileReader {
    private(set) var result = ParsedConfigFile()
    /// For `~` in include paths.
    private let home: String
    /// Canonical paths of the files being read, innermost last: MPD does not detect include loops, we do.
    private var includeStack: [String] = []

    /// Deep enough for any sane layout (a `conf.d` directory is one level).
    static let maximumIncludeDepth = 32

    init(home: String) {
        self.home = home
    }

    /// Reads the top-level file. Unlike an `include`, the caller named it, so the error says only what failed.
    mutating func read(path: String) throws(ConfigError) {
        switch Self.contents(of: path) {
        case .success(let bytes):
            try read(bytes: bytes, file: path)
        case .failure(let reason):
            throw ConfigError(file: path, line: nil, message: "cannot read configuration file: \(reason)")
        }
    }

    /// Reads text that claims to come from `file`; includes are resolved relative to `file`'s directory.
    mutating func read(bytes: [UInt8], file: String) throws(ConfigError) {
        includeStack.append(Self.canonical(file))
        defer { includeStack.removeLast() }

        let lines = Self.splitLines(bytes)
        var index = 0
        while index < lines.count {
            let lineNumber = index + 1
            let line = ConfigLineTokenizer.stripLeft(lines[index])
            index += 1
            guard let first = line.first, first != ConfigLineTokenizer.comment else { continue }
            let at = Location(file: file, line: lineNumber)
            guard first != UInt8(ascii: "}") else { throw at.error("unexpected '}' outside a block") }

            var tokenizer = ConfigLineTokenizer(line)
            let name = try at.attempt(nil) { () throws(ConfigLineTokenizer.Failure) in try tokenizer.nextWord() } ?? ""

            if name == "include" || name == "include_optional" {
                guard let pattern = try at.value(of: name, from: &tokenizer) else {
                    throw at.error("\"\(name)\": value missing")
                }
                try include(pattern, optional: name == "include_optional", from: at)
                continue
            }

            guard let spec = OptionCatalog.spec(name) else { throw at.error("unknown option \"\(name)\"") }
            if !spec.honoured {
                result.warnings.append("\(at): option \"\(name)\" is not supported by NoSignal yet and is ignored")
            }
            switch spec.kind {
            case .option:
                guard tokenizer.current != UInt8(ascii: "{") else {
                    throw at.error("\"\(name)\" takes a quoted value, not a block")
                }
                if let value = try at.value(of: name, from: &tokenizer) {
                    let occurrence = OptionValue(value: value, file: file, line: lineNumber)
                    if spec.repeatable {
                        result.options[name, default: []].append(occurrence)
                    } else {
                        result.options[name] = [occurrence]
                    }
                } else if spec.repeatable {
                    result.options[name] = []
                } else {
                    throw at.error("\"\(name)\": value missing")
                }
            case .block:
                if !spec.repeatable, let first = result.blocks[name]?.first {
                    let place = first.file == file ? "on line \(first.line)" : "at \(first.file):\(first.line)"
                    throw at.error("\"\(name)\" is first defined \(place) and redefined here")
                }
                guard tokenizer.current == UInt8(ascii: "{") else { throw at.error("\"\(name)\": '{' expected") }
                guard tokenizer.rest(skipping: 1).isAtEndOrComment else {
                    throw at.error("\"\(name)\": unexpected text after '{'")
                }
                var block = ConfigBlock(name: name, file: file, line: lineNumber)
                try readBlockBody(into: &block, lines: lines, index: &index)
                result.blocks[name, default: []].append(block)
            }
        }
    }

    /// Reads `key "value"` lines up to the closing `}`; `index` ends after it.
    private func readBlockBody(into block: inout ConfigBlock, lines: [ArraySlice<UInt8>], index: inout Int)
        throws(ConfigError) {
        while index < lines.count {
            let lineNumber = index + 1
            let line = ConfigLineTokenizer.stripLeft(lines[index])
            index += 1
            guard let first = line.first, first != ConfigLineTokenizer.comment else { continue }
            let at = Location(file: block.file, line: lineNumber)
            var tokenizer = ConfigLineTokenizer(line)
            if first == UInt8(ascii: "}") {
                guard tokenizer.rest(skipping: 1).isAtEndOrComment else {
                    throw at.error("unexpected text after '}'")
                }
                return
            }
            let key = try at.attempt(nil) { () throws(ConfigLineTokenizer.Failure) in try tokenizer.nextWord() } ?? ""
            if tokenizer.current == UInt8(ascii: "{") {
                // Blocks do not nest, so this is almost always a forgotten `}` before the next block.
                throw at.error("missing closing '}' for \"\(block.name)\" opened on line \(block.line)")
            }
            guard let value = try at.value(of: key, from: &tokenizer) else {
                throw at.error("\"\(key)\": value missing")
            }
            if let earlier = block.entry(key) {
                throw at.error("\"\(key)\" is duplicate, first defined on line \(earlier.line)")
            }
            block.values.append(ConfigBlock.Entry(key: key, value: value, line: lineNumber))
        }
        throw ConfigError(file: block.file, line: block.line, message: "missing closing '}' for \"\(block.name)\"")
    }

    // MARK: - include

    private mutating func include(_ pattern: String, optional: Bool, from at: Location) throws(ConfigError) {
        let keyword = optional ? "include_optional" : "include"
        guard includeStack.count < Self.maximumIncludeDepth else {
            throw at.error("\"\(keyword)\": includes nested too deeply (more than \(Self.maximumIncludeDepth))")
        }
        let path = resolve(pattern, relativeTo: at.file)
        for file in try expand(path, optional: optional, keyword: keyword, at: at) {
            guard !includeStack.contains(Self.canonical(file)) else {
                throw at.error("\"\(keyword)\": include loop: \"\(file)\" is already being read")
            }
            switch Self.contents(of: file) {
            case .success(let bytes):
                try read(bytes: bytes, file: file)
            case .failure(.notFound) where optional:
                continue
            case .failure(.notFound):
                throw at.error("\"\(keyword)\": file not found: \"\(file)\"")
            case .failure(let reason):
                throw at.error("\"\(keyword)\": cannot read \"\(file)\": \(reason)")
            }
        }
    }

    /// MPD applies the path to the including file's directory; `~` is expanded too (MPD does not, but a path
    /// starting with `~` has no other sensible meaning).
    private func resolve(_ pattern: String, relativeTo file: String) -> String {
        if pattern == "~" { return home }
        if pattern.hasPrefix("~/") { return PathExpander.join(home, String(pattern.dropFirst(2))) }
        if pattern.hasPrefix("/") { return pattern }
        let directory = Self.directoryName(of: file)
        return directory.isEmpty ? pattern : PathExpander.join(directory, pattern)
    }

    /// MPD's `ListWildcard`: only the last component may hold `*` or `?`.
    private func expand(_ path: String, optional: Bool, keyword: String, at: Location) throws(ConfigError) -> [String] {
        let directory = Self.directoryName(of: path)
        let base = String(path[path.index(path.startIndex, offsetBy: directory.count)...]).drop { $0 == "/" }
        guard base.contains(where: { $0 == "*" || $0 == "?" }) else { return [path] }
        let listed = directory.isEmpty ? "." : directory
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: listed)
        } catch {
            if optional { return [] }
            throw at.error("\"\(keyword)\": cannot list directory \"\(listed)\"")
        }
        let pattern = Array(base.utf8)
        return names
            .filter { $0 != "." && $0 != ".." && GlobPattern.matches(pattern, Array($0.utf8)) }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .map { directory.isEmpty ? $0 : PathExpander.join(directory, $0) }
    }

    // MARK: - files and lines

    enum ReadFailure: Error, Equatable, CustomStringConvertible {
        case notFound
        case isDirectory
        case notReadable

        var description: String {
            switch self {
            case .notFound: return "no such file"
            case .isDirectory: return "is a directory"
            case .notReadable: return "permission denied"
            }
        }
    }

    static func contents(of path: String) -> Result<[UInt8], ReadFailure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .failure(.notFound) }
        guard !isDirectory.boolValue else { return .failure(.isDirectory) }
        guard let data = FileManager.default.contents(atPath: path) else { return .failure(.notReadable) }
        return .success(Array(data))
    }

    /// Lines end at `\n`; a `\r` before it is dropped and a NUL ends the line early (both as MPD's
    /// `ReadBufferedLine` and C strings do). A last line without `\n` still counts.
    static func splitLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        return lines.map { line in
            var line = line
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if let nul = line.firstIndex(of: 0) { line = line[..<nul] }
            return line
        }
    }

    /// Everything before the last `/` ("" when there is none, "/" for a file in the root).
    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    static func canonical(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}

/// Where a line is, and how its syntax errors are worded.
struct Location: CustomStringConvertible {
    var file: String
    var line: Int

    var description: String { "\(file):\(line)" }

    func error(_ message: String) -> ConfigError {
        ConfigError(file: file, line: line, message: message)
    }

    /// Runs a tokenizer step, turning its failure into a message about `name` (nil while reading the name).
    func attempt<T>(_ name: String?, _ body: () throws(ConfigLineTokenizer.Failure) -> T) throws(ConfigError) -> T {
        do {
            return try body()
        } catch {
            let prefix = name.map { "\"\($0)\": " } ?? ""
            switch error {
            case .letterExpected: throw self.error("a name must start with a letter")
            case .invalidNameCharacter: throw self.error("invalid character in name (letters, digits and '_')")
            case .quoteExpected: throw self.error("\(prefix)value must be in double quotes")
            case .missingClosingQuote: throw self.error("\(prefix)missing closing '\"'")
            case .spaceExpectedAfterQuote: throw self.error("\(prefix)space expected after closing '\"'")
            }
        }
    }

    /// MPD's `ExpectValueAndEnd`: a quoted value (nil when the line ends after the name), then nothing but a
    /// comment.
    func value(of name: String, from tokenizer: inout ConfigLineTokenizer) throws(ConfigError) -> String? {
        let value = try attempt(name) { () throws(ConfigLineTokenizer.Failure) in try tokenizer.nextString() }
        guard tokenizer.isAtEndOrComment else { throw error("\"\(name)\": unexpected text after value") }
        return value
    }
}
