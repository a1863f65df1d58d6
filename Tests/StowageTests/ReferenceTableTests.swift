@testable import Stowage
import StowageInMemory
import Testing

struct ReferenceTableTests {
    /// Many chains in few stores, taken out in a scrambled order: every chain
    /// left must still be found after each removal moved others back, and
    /// none taken out may be, across several growths of the table.
    @Test func chainsStayFoundAsOthersAreTakenOutInAnyOrder() {
        let stores = (0..<3).map { _ in InMemoryStore() }
        var table = ReferenceTable()
        var cores: [ObservedKey] = []
        for index in 0..<3_000 {
            let store = stores[index % stores.count]
            // Keys shared between stores, so only the store's identity tells their chains apart.
            let core = ObservedKey(storeID: ObjectIdentifier(store), key: "key.\(index / stores.count)")
            table.withFirst(storeID: core.storeID, key: core.key) { $0 = core }
            cores.append(core)
        }
        #expect(table.count == 3_000)

        // A fixed scramble: 1,913 is prime to 3,000, so this visits every index once.
        let order = (0..<3_000).map { $0 * 1_913 % 3_000 }
        var removed = Set<Int>()
        for (step, index) in order.enumerated() {
            let core = cores[index]
            table.withFirst(storeID: core.storeID, key: core.key) { first in
                #expect(first === core)
                first = nil
            }
            removed.insert(index)
            // Checking everything after every removal is quadratic; every 97th keeps the test short.
            guard step % 97 == 0 || step > 2_950 else { continue }
            for (other, expected) in cores.enumerated() {
                let found = table.first(storeID: expected.storeID, key: expected.key)
                #expect((found === expected) == !removed.contains(other), "chain \(other) after removing \(step + 1)")
            }
        }
        #expect(table.count == 0)
        var left = 0
        table.forEachFirst { _ in left += 1 }
        #expect(left == 0)
    }

    @Test func settingAChainThatIsAlreadyThereReplacesItInPlace() {
        let store = InMemoryStore()
        var table = ReferenceTable()
        let first = ObservedKey(storeID: ObjectIdentifier(store), key: "name")
        let second = ObservedKey(storeID: ObjectIdentifier(store), key: "name")
        table.withFirst(storeID: first.storeID, key: "name") { $0 = first }
        table.withFirst(storeID: first.storeID, key: "name") { $0 = second }
        #expect(table.count == 1)
        #expect(table.first(storeID: first.storeID, key: "name") === second)
        #expect(table.first(storeID: first.storeID, key: "other") == nil)
    }
}
