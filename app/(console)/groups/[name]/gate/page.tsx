import type { Metadata } from "next";
import { PageHydration } from "@/components/shell/page-hydration";
import { openPage } from "@/lib/server/console/open-page";
import { GateView } from "./gate-view";

type Props = { params: Promise<{ name: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  return { title: `Gate · ${(await params).name}` };
}

export default async function GroupGatePage(props: Props) {
  const { state, now, params } = await openPage("/groups/[name]/gate", props);
  return (
    <PageHydration state={state} now={now}>
      <GateView group={params.name ?? ""} />
    </PageHydration>
  );
}
