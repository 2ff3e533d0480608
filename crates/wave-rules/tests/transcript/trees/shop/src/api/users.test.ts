test("users", () => {});
