import MPDProtocol
import PlayerCore
import PlayerRuntime

/// "Partition commands" (`src/command/PartitionCommands.cxx`): `partition`, `listpartitions`, `newpartition`,
/// `delpartition`, `moveoutput`.
enum PartitionCommands {
    /// MPD's arbitrary limit.
    static let maximumPartitions = 16

    static let all: [CommandSpec] = [
        CommandSpec("partition", .read, 1...1) { context, request in
            let name = request[0]
            guard context.server.store.partition(name) != nil else {
                throw ACKError(.noExist, "partition does not exist")
            }
            // `Client::SetPartition`: the client is told to reload what belongs to the partition.
            if name != context.client.partition {
                context.client.ownEvents.formUnion([.playlist, .player, .mixer, .output, .options])
            }
            context.client.partition = name
            context.server.clients.setPartition(context.client.id, name)
            return .ok(Response())
        },
        CommandSpec("listpartitions", .read, 0...0) { context, _ in
            var response = Response()
            for partition in context.server.store.state.partitions { response.add("partition", partition.name) }
            return .ok(response)
        },
        CommandSpec("newpartition", .admin, 1...1) { context, request in
            let name = request[0]
            guard isValidName(name) else { throw ACKError(.arg, "bad name") }
            let store = context.server.store
            guard store.partition(name) == nil else { throw ACKError(.exist, "name already exists") }
            guard store.state.partitions.count < maximumPartitions else {
                throw ACKError(.unknown, "too many partitions")
            }
            try store.send(.newPartition(name))
            return .ok(Response())
        },
        CommandSpec("delpartition", .admin, 1...1) { context, request in
            let name = request[0]
            guard isValidName(name) else { throw ACKError(.arg, "bad name") }
            let store = context.server.store
            guard store.partition(name) != nil else { throw ACKError(.noExist, "no such partition") }
            guard name != PlayerState.defaultPartition else {
                throw ACKError(.unknown, "cannot delete the default partition")
            }
            guard context.server.clients.count(partition: name) == 0 else {
                throw ACKError(.unknown, "partition still has clients")
            }
            guard !(store.partition(name)?.outputs.contains { $0.output != nil } ?? false) else {
                throw ACKError(.unknown, "partition still has outputs")
            }
            try store.send(.deletePartition(name))
            return .ok(Response())
        },
        /// Moves an output (by name) into the client's partition.
        CommandSpec("moveoutput", .admin, 1...1) { context, request in
            try context.server.store.send(.moveOutput(name: request[0]), partition: context.client.partition)
            return .ok(Response())
        },
    ]

    /// `IsValidPartitionName`: ASCII letters, digits, `-` and `_`, at least one.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F
        }
    }
}
