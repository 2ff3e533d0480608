export async function listCustomers(): Promise<string[]> { return [] }
