import Foundation
import XCTest

extension XCTestCase {
  /// Checks at the end of this test that `object` was deallocated; returns `object`.
  ///
  /// After the test's body (in a teardown block), the object gets the configured grace period to
  /// go away; if it is still alive, the test fails *at this line* with the retain cycle that holds
  /// it (or the references that do) and where it was allocated.
  ///
  /// ```swift
  /// func testProfileScreen_dismiss_releasesViewModel() {
  ///   let viewModel = trackForLeaks(ProfileViewModel())
  ///   viewModel.load()
  /// }
  /// ```
  /// ```text
  /// ProfileTests.swift:3: error: -[ProfileTests testProfileScreen_dismiss_releasesViewModel] : Leak detected: MyApp.ProfileViewModel (0x55d0c8a1b2c0) is still alive 0.1 s after the test.
  /// It is held by a retain cycle (2 objects):
  ///   ProfileViewModel.onUpdate → closure #1 in ProfileViewModel.load().capture #0: ProfileViewModel → ProfileViewModel
  ///   in short: ProfileViewModel.onUpdate → closure in ProfileViewModel.load() → ProfileViewModel
  /// ```
  @discardableResult
  public func trackForLeaks<Object: AnyObject>(
    _ object: Object, configuration: LeakCheckConfiguration = LeakCheckConfiguration(), file: StaticString = #filePath,
    line: UInt = #line
  ) -> Object {
    let address = UInt(bitPattern: Unmanaged.passUnretained(object).toOpaque())
    let entry = LeakChecker.WatchedObject(
      object: object, address: address, typeName: _typeName(type(of: object), qualified: true), file: "\(file)", line: Int(line))
    let isFirst = WatchedObjects.byTest.withLock { registry -> Bool in
      let key = ObjectIdentifier(self)
      defer { registry[key, default: []].append(entry) }
      return registry[key] == nil
    }
    if isFirst {
      addTeardownBlock { [weak self] in
        guard let self else { return }
        let entries = WatchedObjects.byTest.withLock { $0.removeValue(forKey: ObjectIdentifier(self)) } ?? []
        LeakReporting.report(LeakChecker(configuration: configuration).check(entries), otherwiseAt: ("\(file)", Int(line)), testCase: self)
      }
    }
    return object
  }
}

/// Objects passed to `trackForLeaks`, per running test.
enum WatchedObjects {
  static let byTest = Locked<[ObjectIdentifier: [LeakChecker.WatchedObject]]>([:])
}
