import { Transform } from 'class-transformer';
import { SearchCustomersDto } from '../../dto/search-customers.dto';
import { integerQueryValue } from './query-values';

/** The filters of `GET /api/customers`: those of `search_customers`, read from the query string. */
export class ListCustomersQuery extends SearchCustomersDto {
  @Transform(integerQueryValue)
  override limit?: number = undefined;
}
