import { Transform } from 'class-transformer';
import { SearchTicketsDto } from '../../dto/search-tickets.dto';
import { booleanQueryValue, integerQueryValue } from './query-values';

/**
 * The filters of `GET /api/tickets`: those of `search_tickets`, read from the query string (where
 * `unassigned=true` and `limit=5` arrive as text).
 */
export class ListTicketsQuery extends SearchTicketsDto {
  // The initializers only make the redeclarations legal; the validation pipe assigns the values.
  @Transform(booleanQueryValue)
  override unassigned?: boolean = undefined;

  @Transform(integerQueryValue)
  override limit?: number = undefined;
}
