import { Transform } from 'class-transformer';
import { ExportReportDto } from '../../dto/export-report.dto';
import { listQueryValue } from './query-values';

/**
 * The filters of `GET /api/reports/tickets`: those of `export_ticket_report`, read from the query
 * string (`columns=id,priority`, or the parameter repeated).
 */
export class ReportQuery extends ExportReportDto {
  // The initializer only makes the redeclaration legal; the validation pipe assigns the value.
  @Transform(listQueryValue)
  override columns?: ExportReportDto['columns'] = undefined;
}
