import { listCustomers } from './customers'

test('lists customers', async () => { expect(await listCustomers()).toEqual([]) })
